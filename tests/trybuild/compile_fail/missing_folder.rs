mod surface {
    toolsurface::surface!("no/such/folder");
}

fn main() {}
