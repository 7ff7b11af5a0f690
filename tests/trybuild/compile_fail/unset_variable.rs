mod surface {
    toolsurface::surface!("$TOOLSURFACE_NO_SUCH_VARIABLE/defs");
}

fn main() {}
