// A generic device function.
#[cuprum_macros::device]
fn id<T>(x: T) -> T {
    x
}

fn main() {}
