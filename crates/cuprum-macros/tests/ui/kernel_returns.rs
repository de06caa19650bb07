// A grid kernel returns nothing.
#[cuprum_macros::kernel]
fn first(x: &mut [f32]) -> f32 {
    x[0]
}

fn main() {}
