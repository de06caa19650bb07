// A `match` guard.
#[cuprum_macros::vectorize(i32(i32))]
fn sign(x: i32) -> i32 {
    match x {
        k if k > 0 => 1,
        _ => 0,
    }
}

fn main() {}
