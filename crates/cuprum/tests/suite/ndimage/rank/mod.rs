//! `scipy.ndimage` rank: tests land with the family.
