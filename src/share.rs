//! Share links: a compact, versioned URL query encoding of a scenario. (Placeholder until the
//! share-link work lands.)
