//! `scipy.ndimage` morphology: tests land with the family.
