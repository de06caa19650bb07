//! `scipy.ndimage` measure: tests land with the family.
