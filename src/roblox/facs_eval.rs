//! FACS evaluation: the transform of each face bone for given control weights
//! (stub; being implemented).
