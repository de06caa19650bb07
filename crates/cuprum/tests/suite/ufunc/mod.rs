//! Elementwise operations (ufuncs): promotion and weak scalars on every device, against
//! values NumPy printed; `gpu`: the GPU against the CPU on seeded random inputs.

mod cpu;
pub(crate) mod gpu;

use cuprum::{s, DType, Error};

device_test!(weak_scalars_and_promotion, |dev| {
    let f = cuprum::ones(&[3], DType::Float32, &dev)?;
    assert_eq!((&f * 2.0)?.dtype(), DType::Float32);
    assert_eq!((2 * &f)?.dtype(), DType::Float32);
    let i = cuprum::ones(&[3], DType::Int32, &dev)?;
    assert_eq!((&i + 1)?.dtype(), DType::Int32);
    assert_eq!((&i + 1.5)?.dtype(), DType::Float64);
    assert_eq!((&i / 2)?.dtype(), DType::Float64);
    let u = cuprum::ones(&[3], DType::UInt8, &dev)?;
    assert!(matches!(&u + 300, Err(Error::ScalarOverflow { .. })));
    assert_eq!(cuprum::add(&u, &cuprum::ones(&[3], DType::Int8, &dev)?)?.dtype(), DType::Int16);
    // float32 * 0.1: the scalar is rounded to float32 first, as in NumPy.
    let r: f32 = (&f * 0.1)?.slice(s![0])?.item()?;
    assert_eq!(r, 0.1f32);
    Ok(())
});
