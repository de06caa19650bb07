// A shared array's size must be an integer literal.
const N: usize = 64;

#[cuprum_macros::kernel]
fn stage(x: &mut [f32]) {
    let s = shared::<f32, N>();
    x[0] = s[0];
}

fn main() {}
