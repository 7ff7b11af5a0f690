mod surface {
    toolsurface::surface!(tool_defs);
}

fn main() {}
