//! Deterministic "arbitrary" values and the hashing the interpreter's tables use.
//!
//! The SDV semantics leaves memory contents, uninitialised locals, `havoc` and the result
//! of a division by zero unspecified (the last one a function of the dividend). The interpreter picks them pseudo-randomly from the
//! run's memory seed so that every check is reproducible. Values are kept small (0..8):
//! data-dependent indices then collide now and then, which is where races hide. Seed 0
//! is the all-zero run.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Arbitrary values are drawn from `0..ARBITRARY_RANGE`.
pub(super) const ARBITRARY_RANGE: u64 = 8;

/// The splitmix64 finaliser: a cheap, well-mixing bijection on 64-bit words.
pub(super) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The initial content of element `index` of array `array` under memory seed `seed`.
pub(super) fn initial_content(seed: u64, array: u32, index: i64) -> i64 {
    if seed == 0 {
        return 0;
    }
    let h = mix(mix(seed ^ mix(u64::from(array))) ^ index as u64);
    (h % ARBITRARY_RANGE) as i64
}

/// The stream of arbitrary values of one run (havoc, uninitialised locals, x / 0, ...).
#[derive(Clone, Debug)]
pub(super) struct Rng {
    seed: u64,
    state: u64,
}

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng {
            seed,
            state: mix(seed.wrapping_mul(0x2545_F491_4F6C_DD1D)),
        }
    }

    pub(super) fn arbitrary(&mut self) -> i64 {
        if self.seed == 0 {
            return 0;
        }
        self.state = mix(self.state);
        (self.state % ARBITRARY_RANGE) as i64
    }

    /// The result of `a / 0` (`rem` false) or `a % 0` (`rem` true) in this run: unknown,
    /// but one function of the dividend for every thread, as on GPUs (where integer
    /// division by zero does not trap) and as the static verifier encodes it.
    pub(super) fn div_by_zero(&self, rem: bool, a: i64) -> i64 {
        if self.seed == 0 {
            return 0;
        }
        let h = mix(mix(self.seed ^ u64::from(rem)) ^ a as u64);
        (h % ARBITRARY_RANGE) as i64
    }

    /// A pseudo-random choice between two outcomes.
    pub(super) fn coin(&mut self) -> bool {
        if self.seed == 0 {
            return false;
        }
        self.state = mix(self.state);
        self.state & 1 == 1
    }
}

/// An FxHash-style hasher: the interpreter hashes small integer keys millions of times,
/// and SipHash's DoS resistance buys nothing here.
#[derive(Default, Clone, Copy)]
pub(super) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_is_all_zeros() {
        let mut r = Rng::new(0);
        assert!((0..100).all(|_| r.arbitrary() == 0));
        assert!((0..100).all(|i| initial_content(0, 3, i) == 0));
    }

    #[test]
    fn other_seeds_are_small_varied_and_reproducible() {
        let vals: Vec<i64> = (0..64).map(|i| initial_content(7, 1, i)).collect();
        assert!(vals.iter().all(|v| (0..ARBITRARY_RANGE as i64).contains(v)));
        assert!(vals.iter().any(|v| *v != vals[0]));
        assert_eq!(
            vals,
            (0..64).map(|i| initial_content(7, 1, i)).collect::<Vec<_>>()
        );
        let (mut a, mut b) = (Rng::new(2), Rng::new(2));
        assert!((0..32).all(|_| a.arbitrary() == b.arbitrary()));
    }
}
