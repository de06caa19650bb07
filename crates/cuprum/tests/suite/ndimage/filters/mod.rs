//! `scipy.ndimage` filters: tests land with the family.
