// Every definition error is reported, each naming file:line:col, on the path literal.
mod surface {
    toolsurface_macros::surface!("$TOOLSURFACE_REPO/tests/trybuild/fixtures/bad");
}

fn main() {}
