// The deck sizes compiled into the binary (see "Deck sizes" in sizes.rs and protocol/FAIR.md).
// Each entry costs ≈2 s of release compile time (≈3 s CPU) on the 2-core build machine; all of
// 2..=208 took 10 min 15 s, so the list is curated. Keep it ascending.
supported_sizes! {
    2 3 4 6 8 10 12 16 20 24 28 32 36 40 48 52 54 55 78 91 104 108 156 208
}
