mod surface {
    toolsurface_macros::surface!("$TOOLSURFACE_NO_SUCH_VARIABLE/defs");
}

fn main() {}
