//! `scipy.ndimage` label: tests land with the family.
