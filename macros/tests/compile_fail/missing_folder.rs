mod surface {
    toolsurface_macros::surface!("no/such/folder");
}

fn main() {}
