// A macro call in a kernel body.
#[cuprum_macros::vectorize(f32(f32))]
fn noisy(x: f32) -> f32 {
    println!("{x}");
    x
}

fn main() {}
