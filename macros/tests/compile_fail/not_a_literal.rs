mod surface {
    toolsurface_macros::surface!(tool_defs);
}

fn main() {}
