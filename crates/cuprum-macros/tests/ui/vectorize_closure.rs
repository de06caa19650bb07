// A closure in a kernel body.
#[cuprum_macros::vectorize(f32(f32))]
fn twice(x: f32) -> f32 {
    let g = |y: f32| y * 2.0;
    g(x)
}

fn main() {}
