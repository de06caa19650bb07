// A `for` loop over something other than a range.
#[cuprum_macros::vectorize(f32(f32))]
fn sum(x: f32) -> f32 {
    let mut s = 0.0;
    for v in [1.0f32, 2.0].iter() {
        s += v * x;
    }
    s
}

fn main() {}
