//! The Bayer–Groth (2012) shuffle argument with m = 1, in ziffle 0.1.0's proof format and
//! transcript, for a deck size chosen at run time. protocol/FAIR.md §9 states the equations.
//!
//! The prover consumes its RNG in exactly ziffle's order (permutation, remasking scalars, then
//! the proof's blinding values), so a seeded shuffle reproduces ziffle's deck and proof byte for
//! byte; disputes recompute a seat's step from its committed seed and compare bytes.
//!
//! The verifier checks the same eight group equations as ziffle, folded into one
//! multi-scalar multiplication with random weights (see [`verify`]); the two scalar equations
//! are checked exactly.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{One, UniformRand, Zero};
use rand::seq::SliceRandom;
use rand::{CryptoRng, RngCore};
use zeroize::Zeroizing;

use super::group::{
    ciphertexts_bytes, decode_point, decode_scalar, generator, generators, msm, mul_base,
    mul_generator, point_bytes, scalar_bytes, Affine, Ciphertext, Generators, Point, Scalar,
    CIPHERTEXT_LEN, POINT_LEN, SCALAR_LEN,
};
use super::transcript::Transcript;

const X_DST: &[u8] = b"ziffle/BG12X/v1";
const YZ_DST: &[u8] = b"ziffle/BG12YZ/v1";
const MULTI_EXP_DST: &[u8] = b"ziffle/BG12MultiExpArgX/v1";
const PRODUCT_DST: &[u8] = b"ziffle/BG12ProductArgX/v1";
/// Our own tag for the verifier's batching weights; no ziffle challenge uses it.
const BATCH_DST: &[u8] = b"tolerance/fair/bg-batch/v1";
/// Our own tag for the weights that add the steps of a chain together ([`verify_steps`]).
const CHAIN_DST: &[u8] = b"tolerance/fair/bg-chain/v1";

/// Encoded size of a proof for `n` cards: 11 points, `3n + 6` scalars.
pub(crate) const fn proof_len(n: usize) -> usize {
    11 * POINT_LEN + (3 * n + 6) * SCALAR_LEN
}

/// A shuffle proof. Field names follow ziffle (and through it the paper): `pi` the permutation,
/// `xpi` the vector `x^{π(i)+1}`, a multi-exponentiation argument (`alpha` … `tau`) and a
/// single-value product argument (`d` … `s_tilde`).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ShuffleArgument {
    c_pi: Affine,
    c_xpi: Affine,
    c_alpha: Affine,
    c_beta: Affine,
    ct_mxp0: Ciphertext,
    ct_mxp1: Ciphertext,
    o_alpha: Vec<Scalar>,
    o_r: Scalar,
    beta: Scalar,
    o_beta: Scalar,
    tau: Scalar,
    c_d: Affine,
    c_sdelta: Affine,
    c_cdelta: Affine,
    a_tilde: Vec<Scalar>,
    b_tilde: Vec<Scalar>,
    r_tilde: Scalar,
    s_tilde: Scalar,
}

/// Sequential strict reader over a proof encoding.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn point(&mut self) -> Option<Affine> {
        decode_point(self.take(POINT_LEN)?)
    }
    fn ciphertext(&mut self) -> Option<Ciphertext> {
        Some((self.point()?, self.point()?))
    }
    fn scalar(&mut self) -> Option<Scalar> {
        decode_scalar(self.take(SCALAR_LEN)?)
    }
    fn scalars(&mut self, n: usize) -> Option<Vec<Scalar>> {
        (0..n).map(|_| self.scalar()).collect()
    }
}

impl ShuffleArgument {
    /// Number of cards the proof is for.
    pub(crate) fn size(&self) -> usize {
        self.o_alpha.len()
    }

    /// ziffle's field order: `c_pi ‖ c_xpi ‖ c_alpha ‖ c_beta ‖ ct_mxp0 ‖ ct_mxp1 ‖ o_alpha ‖ o_r
    /// ‖ beta ‖ o_beta ‖ tau ‖ c_d ‖ c_sdelta ‖ c_cdelta ‖ a_tilde ‖ b_tilde ‖ r_tilde ‖ s_tilde`.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(proof_len(self.size()));
        let point = |out: &mut Vec<u8>, p: &Affine| out.extend_from_slice(&point_bytes(p));
        point(&mut out, &self.c_pi);
        point(&mut out, &self.c_xpi);
        point(&mut out, &self.c_alpha);
        point(&mut out, &self.c_beta);
        for p in [
            &self.ct_mxp0.0,
            &self.ct_mxp0.1,
            &self.ct_mxp1.0,
            &self.ct_mxp1.1,
        ] {
            point(&mut out, p);
        }
        let scalar = |out: &mut Vec<u8>, s: &Scalar| out.extend_from_slice(&scalar_bytes(s));
        self.o_alpha.iter().for_each(|s| scalar(&mut out, s));
        for s in [&self.o_r, &self.beta, &self.o_beta, &self.tau] {
            scalar(&mut out, s);
        }
        point(&mut out, &self.c_d);
        point(&mut out, &self.c_sdelta);
        point(&mut out, &self.c_cdelta);
        self.a_tilde.iter().for_each(|s| scalar(&mut out, s));
        self.b_tilde.iter().for_each(|s| scalar(&mut out, s));
        scalar(&mut out, &self.r_tilde);
        scalar(&mut out, &self.s_tilde);
        out
    }

    /// Strict decoding of a proof for `n` cards: exact length, every point on the curve and
    /// every scalar below the group order, each in its canonical encoding.
    pub(crate) fn from_bytes(n: usize, bytes: &[u8]) -> Option<Self> {
        if bytes.len() != proof_len(n) {
            return None;
        }
        let mut r = Reader(bytes);
        let proof = ShuffleArgument {
            c_pi: r.point()?,
            c_xpi: r.point()?,
            c_alpha: r.point()?,
            c_beta: r.point()?,
            ct_mxp0: r.ciphertext()?,
            ct_mxp1: r.ciphertext()?,
            o_alpha: r.scalars(n)?,
            o_r: r.scalar()?,
            beta: r.scalar()?,
            o_beta: r.scalar()?,
            tau: r.scalar()?,
            c_d: r.point()?,
            c_sdelta: r.point()?,
            c_cdelta: r.point()?,
            a_tilde: r.scalars(n)?,
            b_tilde: r.scalars(n)?,
            r_tilde: r.scalar()?,
            s_tilde: r.scalar()?,
        };
        r.0.is_empty().then_some(proof)
    }
}

/// A deck as both values and its canonical encoding (the transcript hashes the encoding).
#[derive(Clone, Copy)]
pub(crate) struct DeckRef<'a> {
    pub(crate) cards: &'a [Ciphertext],
    pub(crate) bytes: &'a [u8],
}

/// What a shuffle proof is about: `next` is `prev` permuted and remasked under `apk`, in
/// context `ctx`.
#[derive(Clone, Copy)]
pub(crate) struct Statement<'a> {
    pub(crate) apk: Affine,
    pub(crate) prev: DeckRef<'a>,
    pub(crate) next: DeckRef<'a>,
    pub(crate) ctx: &'a [u8],
}

impl Statement<'_> {
    /// The transcript through `c_pi`, and the challenge `x` it yields.
    fn first_challenge(&self, c_pi: &Affine) -> (Transcript, Scalar) {
        let ts = Transcript::new(self.ctx)
            .append("apk", &point_bytes(&self.apk))
            .append_list("prev", self.prev.bytes.chunks(CIPHERTEXT_LEN))
            .append_list("next", self.next.bytes.chunks(CIPHERTEXT_LEN))
            .append("c_pi", &point_bytes(c_pi));
        let [x] = ts.challenges(X_DST);
        (ts, x)
    }
}

/// `x^1, x^2, …, x^n`.
fn powers(x: Scalar, n: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(n);
    let mut acc = x;
    for _ in 0..n {
        out.push(acc);
        acc *= x;
    }
    out
}

fn ciphertext_bytes(c: &Ciphertext) -> [u8; CIPHERTEXT_LEN] {
    let mut out = [0u8; CIPHERTEXT_LEN];
    out[..POINT_LEN].copy_from_slice(&point_bytes(&c.0));
    out[POINT_LEN..].copy_from_slice(&point_bytes(&c.1));
    out
}

fn multi_exp_challenge(
    ts: &Transcript,
    c_alpha: &Affine,
    c_beta: &Affine,
    ct_mxp0: &Ciphertext,
    ct_mxp1: &Ciphertext,
) -> Scalar {
    let [x] = ts
        .append("c_alpha", &point_bytes(c_alpha))
        .append("c_beta", &point_bytes(c_beta))
        .append("ct_mxp0", &ciphertext_bytes(ct_mxp0))
        .append("ct_mxp1", &ciphertext_bytes(ct_mxp1))
        .challenges(MULTI_EXP_DST);
    x
}

fn product_challenge(
    ts: &Transcript,
    c_d: &Affine,
    c_sdelta: &Affine,
    c_cdelta: &Affine,
) -> Scalar {
    let [x] = ts
        .append("c_d", &point_bytes(c_d))
        .append("c_sdelta", &point_bytes(c_sdelta))
        .append("c_cdelta", &point_bytes(c_cdelta))
        .challenges(PRODUCT_DST);
    x
}

/// Pedersen vector commitments over `g_0..g_{n-1}` and `h`, all sharing one base list.
struct CommitKey {
    bases: Vec<Affine>,
}

impl CommitKey {
    fn new(gens: &Generators, n: usize) -> Self {
        let mut bases = Vec::with_capacity(n + 1);
        bases.extend_from_slice(&gens.g[..n]);
        bases.push(gens.h);
        CommitKey { bases }
    }

    /// `Σ m_i·g_i + r·h` (a shorter `m` leaves the last generators out, as a zero would).
    fn commit(&self, m: &[Scalar], r: Scalar) -> Affine {
        let n = self.bases.len() - 1;
        let mut scalars = Vec::with_capacity(n + 1);
        scalars.extend_from_slice(m);
        scalars.resize(n, Scalar::zero());
        scalars.push(r);
        msm(&self.bases, &scalars).into_affine()
    }
}

/// The shuffler's output: the new deck and its proof.
pub(crate) struct Shuffled {
    pub(crate) cards: Vec<Ciphertext>,
    pub(crate) bytes: Vec<u8>,
    pub(crate) proof: ShuffleArgument,
    pub(crate) proof_bytes: Vec<u8>,
}

/// The secret half of a shuffle: a uniform permutation of `prev` (`SliceRandom::shuffle` of
/// `0..n`) and one remasking scalar per output card under `apk`, drawn from `rng` in that order;
/// the permutation, the scalars and the remasked cards. The permutation and the scalars are
/// wiped when dropped.
fn permute_and_remask<R: RngCore + CryptoRng>(
    rng: &mut R,
    apk: &Affine,
    prev: &[Ciphertext],
) -> (
    Zeroizing<Vec<usize>>,
    Zeroizing<Vec<Scalar>>,
    Vec<Ciphertext>,
) {
    let n = prev.len();
    let mut perm: Zeroizing<Vec<usize>> = Zeroizing::new((0..n).collect());
    perm.as_mut_slice().shuffle(rng);
    let rho: Zeroizing<Vec<Scalar>> = Zeroizing::new((0..n).map(|_| Scalar::rand(rng)).collect());
    let rho_g = mul_generator(&rho);
    let rho_pk = mul_base(apk, &rho);
    let remasked: Vec<Point> = (0..n)
        .flat_map(|i| {
            let (c1, c2) = prev[perm[i]];
            [c1.into_group() + rho_g[i], c2.into_group() + rho_pk[i]]
        })
        .collect();
    let cards: Vec<Ciphertext> = Point::normalize_batch(&remasked)
        .chunks_exact(2)
        .map(|c| (c[0], c[1]))
        .collect();
    (perm, rho, cards)
}

/// Permute `prev` uniformly, remask every card under `apk`, and prove it. `prev` must hold at
/// least two cards. The RNG is used in ziffle's order: `SliceRandom::shuffle` of `0..n`, one
/// remasking scalar per output card, then the proof's blinding values.
///
/// Returns `None` only if the proof fails our own verifier, which would be a bug: ziffle panics
/// in that case, we let the caller refuse to publish.
pub(crate) fn shuffle_and_prove<R: RngCore + CryptoRng>(
    rng: &mut R,
    apk: &Affine,
    prev: DeckRef<'_>,
    ctx: &[u8],
) -> Option<Shuffled> {
    let out = shuffle_and_prove_unchecked(rng, apk, prev, ctx);
    let next = DeckRef {
        cards: &out.cards,
        bytes: &out.bytes,
    };
    let statement = Statement {
        apk: *apk,
        prev,
        next,
        ctx,
    };
    verify_encoded(&statement, &out.proof, &out.proof_bytes).then_some(out)
}

/// [`shuffle_and_prove`] without the prover's check of its own proof, for a step whose chain is
/// checked whole, this step included, before its deck is used ([`verify_steps`]): the same
/// bytes from the same RNG, one verification fewer.
pub(crate) fn shuffle_and_prove_unchecked<R: RngCore + CryptoRng>(
    rng: &mut R,
    apk: &Affine,
    prev: DeckRef<'_>,
    ctx: &[u8],
) -> Shuffled {
    let n = prev.cards.len();
    assert!(n >= 2, "a shuffle needs at least two cards");
    let gens = generators(n);
    let ck = CommitKey::new(&gens, n);
    let g = generator();

    let (perm, rho, cards) = permute_and_remask(rng, apk, prev.cards);
    let bytes = ciphertexts_bytes(&cards);
    let next = DeckRef {
        cards: &cards,
        bytes: &bytes,
    };
    let statement = Statement {
        apk: *apk,
        prev,
        next,
        ctx,
    };

    // The permutation, 1-based so that no entry is zero.
    let pi: Zeroizing<Vec<Scalar>> =
        Zeroizing::new(perm.iter().map(|&p| Scalar::from(p as u64 + 1)).collect());
    let w_pi = Scalar::rand(rng);
    let c_pi = ck.commit(&pi, w_pi);
    let (ts, x) = statement.first_challenge(&c_pi);
    let x_powers = powers(x, n);
    let xpi: Zeroizing<Vec<Scalar>> = Zeroizing::new(perm.iter().map(|&p| x_powers[p]).collect());
    let w_xpi = Scalar::rand(rng);
    let c_xpi = ck.commit(&xpi, w_xpi);
    let ts = ts.append("c_xpi", &point_bytes(&c_xpi));
    let [y, z] = ts.challenges(YZ_DST);

    // Multi-exponentiation argument: next, weighted by x^{π(i)+1}, opens to prev weighted by
    // x^{i+1}, up to a re-encryption of one by the aggregate remasking randomness.
    let alpha: Zeroizing<Vec<Scalar>> = Zeroizing::new((0..n).map(|_| Scalar::rand(rng)).collect());
    let beta = Scalar::rand(rng);
    let w_alpha = Scalar::rand(rng);
    let c_alpha = ck.commit(&alpha, w_alpha);
    let w_beta = Scalar::rand(rng);
    let c_beta = (g * beta + gens.h * w_beta).into_affine();
    let tau0 = Scalar::rand(rng);
    let c1s: Vec<Affine> = cards.iter().map(|c| c.0).chain([g, *apk]).collect();
    let c2s: Vec<Affine> = cards.iter().map(|c| c.1).chain([g, *apk]).collect();
    let with = |v: &[Scalar], tail: [Scalar; 2]| -> Vec<Scalar> {
        v.iter().copied().chain(tail).collect()
    };
    let zero = Scalar::zero();
    let ct_mxp0 = (
        msm(&c1s, &with(&alpha, [tau0, zero])).into_affine(),
        msm(&c2s, &with(&alpha, [beta, tau0])).into_affine(),
    );
    let rho_agg = -rho
        .iter()
        .zip(xpi.iter())
        .map(|(r, e)| *r * e)
        .sum::<Scalar>();
    let ct_mxp1 = (
        msm(&c1s, &with(&xpi, [rho_agg, zero])).into_affine(),
        msm(&c2s, &with(&xpi, [zero, rho_agg])).into_affine(),
    );
    let x_m = multi_exp_challenge(&ts, &c_alpha, &c_beta, &ct_mxp0, &ct_mxp1);
    let o_alpha: Vec<Scalar> = alpha
        .iter()
        .zip(xpi.iter())
        .map(|(a, e)| *a + x_m * e)
        .collect();
    let o_r = w_alpha + x_m * w_xpi;
    let tau = tau0 + x_m * rho_agg;

    // Single-value product argument: Π (y·π(i) + x^{π(i)+1} − z) equals the public product,
    // which holds (except with negligible probability) only if π is a permutation.
    let d: Zeroizing<Vec<Scalar>> = Zeroizing::new((0..n).map(|_| Scalar::rand(rng)).collect());
    let w_d = Scalar::rand(rng);
    let c_d = ck.commit(&d, w_d);
    let mut sdelta = Zeroizing::new(vec![Scalar::zero(); n]);
    sdelta[0] = d[0];
    for s in sdelta.iter_mut().take(n - 1).skip(1) {
        *s = Scalar::rand(rng);
    }
    let w_sdelta = Scalar::rand(rng);
    let minus_sdelta_d: Vec<Scalar> = (0..n - 1).map(|i| -sdelta[i] * d[i + 1]).collect();
    let c_sdelta = ck.commit(&minus_sdelta_d, w_sdelta);
    let a: Zeroizing<Vec<Scalar>> = Zeroizing::new(
        pi.iter()
            .zip(xpi.iter())
            .map(|(p, e)| y * p + e - z)
            .collect(),
    );
    let mut b = Zeroizing::new(Vec::with_capacity(n));
    let mut acc = Scalar::one();
    for ai in a.iter() {
        acc *= ai;
        b.push(acc);
    }
    let cdelta: Vec<Scalar> = (0..n - 1)
        .map(|i| sdelta[i + 1] - a[i + 1] * sdelta[i] - b[i] * d[i + 1])
        .collect();
    let w_cdelta = Scalar::rand(rng);
    let c_cdelta = ck.commit(&cdelta, w_cdelta);
    let x_p = product_challenge(&ts, &c_d, &c_sdelta, &c_cdelta);
    let a_tilde: Vec<Scalar> = a
        .iter()
        .zip(d.iter())
        .map(|(ai, di)| x_p * ai + di)
        .collect();
    let b_tilde: Vec<Scalar> = b
        .iter()
        .zip(sdelta.iter())
        .map(|(bi, si)| x_p * bi + si)
        .collect();
    let r_tilde = x_p * (y * w_pi + w_xpi) + w_d;
    let s_tilde = x_p * w_cdelta + w_sdelta;

    let proof = ShuffleArgument {
        c_pi,
        c_xpi,
        c_alpha,
        c_beta,
        ct_mxp0,
        ct_mxp1,
        o_alpha,
        o_r,
        beta,
        o_beta: w_beta,
        tau,
        c_d,
        c_sdelta,
        c_cdelta,
        a_tilde,
        b_tilde,
        r_tilde,
        s_tilde,
    };
    let proof_bytes = proof.to_bytes();
    Shuffled {
        cards,
        bytes,
        proof,
        proof_bytes,
    }
}

/// Verify a shuffle proof: ziffle's eight group equations and two scalar equations.
///
/// The group equations `R_k = 0` are checked at once as `Σ w_k·R_k = 0`, one multi-scalar
/// multiplication over `5n + 14` points, with weights `w_k` hashed from the transcript and the
/// whole proof. If some `R_k ≠ 0`, the sum vanishes for at most one value of `w_k` given the
/// others, so a false proof passes with probability ≤ 1/q ≈ 2^-256 per weight draw; the
/// weights being a hash of everything the residuals depend on, a prover can only retry with a
/// new proof, at one hash evaluation per try (the same bound as the Fiat–Shamir challenges).
pub(crate) fn verify(statement: &Statement<'_>, proof: &ShuffleArgument) -> bool {
    verify_encoded(statement, proof, &proof.to_bytes())
}

fn verify_encoded(st: &Statement<'_>, p: &ShuffleArgument, proof_bytes: &[u8]) -> bool {
    verify_steps(st.apk, &[st.prev, st.next], &[(st.ctx, p, proof_bytes)])
}

/// One step of a chain for [`verify_steps`]: its proof context, its proof and the proof's bytes.
pub(crate) type ChainStep<'a> = (&'a [u8], &'a ShuffleArgument, &'a [u8]);

/// Verify consecutive shuffle steps under one key at once: step `j` turns `decks[j]` into
/// `decks[j + 1]`, in context `steps[j].0`.
///
/// Each step's scalar equations are checked exactly, and its group equations folded with its
/// own weights `w_{j,k}` as in [`verify`]; the steps' folded sums are then added with chain
/// weights `ρ_0 = 1, ρ_j` (j ≥ 1) hashed from every step's weighted transcript (each holds the
/// key, both decks, the context and the whole proof), and checked as one multi-scalar
/// multiplication. A deck that ends one step and starts the next is one set of bases, as are
/// the Pedersen generators, so `m` steps of `n` cards cost `2n(m + 1) + n + 3 + 11m` points instead
/// of `m(5n + 14)`. A false step passes only if its nonzero folded residual is cancelled by the
/// others', which for weights fixed by a hash of them all happens with probability ≤ 1/q per
/// hash evaluation, as for one proof. A single step gets `ρ_0 = 1`: exactly [`verify`].
pub(crate) fn verify_steps(apk: Affine, decks: &[DeckRef<'_>], steps: &[ChainStep<'_>]) -> bool {
    let Some(first) = decks.first() else {
        return false;
    };
    let n = first.cards.len();
    if n < 2
        || steps.is_empty()
        || decks.len() != steps.len() + 1
        || decks
            .iter()
            .any(|d| d.cards.len() != n || d.bytes.len() != n * CIPHERTEXT_LEN)
    {
        return false;
    }
    let mut challenges = Vec::with_capacity(steps.len());
    for (j, &(ctx, p, proof_bytes)) in steps.iter().enumerate() {
        let st = Statement {
            apk,
            prev: decks[j],
            next: decks[j + 1],
            ctx,
        };
        match Challenges::of(&st, p, proof_bytes) {
            Some(c) => challenges.push(c),
            None => return false,
        }
    }
    // Every ρ is drawn after every step is fixed.
    let chain = Transcript::new(CHAIN_DST)
        .append_list("steps", challenges.iter().map(|c| c.digest.as_slice()));
    let mut fold = Fold::new(n, decks.len());
    for (j, (c, &(_, p, _))) in challenges.iter().zip(steps).enumerate() {
        let rho = if j == 0 {
            Scalar::one()
        } else {
            let [rho] = chain
                .append("step", &(j as u64).to_be_bytes())
                .challenges(CHAIN_DST);
            rho
        };
        fold.add_step(j, p, c, rho);
    }
    fold.check(apk, decks)
}

/// The group equations' terms, summed over the steps of a chain: one scalar per base that the
/// steps share (each deck's card points, the Pedersen generators, `G`, `PK`), and the points
/// that belong to one proof alone.
struct Fold {
    /// Per deck, per card: the scalars of `c1` and `c2`.
    decks: Vec<Vec<(Scalar, Scalar)>>,
    g: Vec<Scalar>,
    h: Scalar,
    generator: Scalar,
    apk: Scalar,
    own: Vec<(Affine, Scalar)>,
}

impl Fold {
    fn new(n: usize, decks: usize) -> Self {
        Fold {
            decks: vec![vec![(Scalar::zero(), Scalar::zero()); n]; decks],
            g: vec![Scalar::zero(); n],
            h: Scalar::zero(),
            generator: Scalar::zero(),
            apk: Scalar::zero(),
            own: Vec::new(),
        }
    }

    /// `Σ = 0`, as one multi-scalar multiplication.
    fn check(self, apk: Affine, decks: &[DeckRef<'_>]) -> bool {
        let n = self.g.len();
        let mut bases: Vec<Affine> =
            Vec::with_capacity(2 * n * decks.len() + n + 3 + self.own.len());
        let mut scalars: Vec<Scalar> = Vec::with_capacity(bases.capacity());
        let mut add = |base: Affine, s: Scalar| {
            if !base.is_zero() && !s.is_zero() {
                bases.push(base);
                scalars.push(s);
            }
        };
        for (deck, terms) in decks.iter().zip(&self.decks) {
            for (c, (s1, s2)) in deck.cards.iter().zip(terms) {
                add(c.0, *s1);
                add(c.1, *s2);
            }
        }
        let gens = generators(n);
        for (g, s) in gens.g.iter().zip(&self.g) {
            add(*g, *s);
        }
        add(gens.h, self.h);
        add(generator(), self.generator);
        add(apk, self.apk);
        for (base, s) in self.own {
            add(base, s);
        }
        msm(&bases, &scalars).is_zero()
    }
}

/// One step's Fiat–Shamir challenges, its batching weights and the digest of its weighted
/// transcript; made only when its lengths and its two scalar equations hold.
struct Challenges {
    x_powers: Vec<Scalar>,
    y: Scalar,
    z: Scalar,
    x_m: Scalar,
    x_p: Scalar,
    w: [Scalar; 8],
    digest: [u8; 32],
}

impl Challenges {
    fn of(st: &Statement<'_>, p: &ShuffleArgument, proof_bytes: &[u8]) -> Option<Self> {
        let n = st.prev.cards.len();
        if p.o_alpha.len() != n || p.a_tilde.len() != n || p.b_tilde.len() != n {
            return None;
        }
        let (ts, x) = st.first_challenge(&p.c_pi);
        let ts = ts.append("c_xpi", &point_bytes(&p.c_xpi));
        let [y, z] = ts.challenges(YZ_DST);
        let x_m = multi_exp_challenge(&ts, &p.c_alpha, &p.c_beta, &p.ct_mxp0, &p.ct_mxp1);
        let x_p = product_challenge(&ts, &p.c_d, &p.c_sdelta, &p.c_cdelta);
        let x_powers = powers(x, n);

        // The two scalar equations of the product argument.
        if p.b_tilde[0] != p.a_tilde[0] {
            return None;
        }
        let public_product: Scalar = x_powers
            .iter()
            .enumerate()
            .map(|(k, xk)| y * Scalar::from(k as u64 + 1) + xk - z)
            .product();
        if p.b_tilde[n - 1] != x_p * public_product {
            return None;
        }
        let weighted = ts.append("proof", proof_bytes);
        Some(Challenges {
            x_powers,
            y,
            z,
            x_m,
            x_p,
            w: weighted.challenges(BATCH_DST),
            digest: weighted.digest(),
        })
    }
}

impl Fold {
    /// Adds step `j`'s eight group equations, weighted by its `w_k` times `rho`.
    fn add_step(&mut self, j: usize, p: &ShuffleArgument, c: &Challenges, rho: Scalar) {
        let n = self.g.len();
        let (x_m, x_p, y) = (c.x_m, c.x_p, c.y);
        let w = c.w.map(|w| rho * w);
        let (prev, next) = self.decks.split_at_mut(j + 1);
        // R1 (c1, c2): Σ x^{i+1}·prev_i − ct_mxp1 = 0.
        for (t, xk) in prev[j].iter_mut().zip(&c.x_powers) {
            t.0 += w[0] * xk;
            t.1 += w[1] * xk;
        }
        // R4 (c1, c2): ct_mxp0 + x_m·ct_mxp1 − (τ·G, β·G + τ·PK) − Σ o_alpha_i·next_i = 0.
        for (t, o) in next[0].iter_mut().zip(&p.o_alpha) {
            t.0 -= w[4] * o;
            t.1 -= w[5] * o;
        }
        self.own.extend([
            (p.ct_mxp1.0, w[4] * x_m - w[0]),
            (p.ct_mxp1.1, w[5] * x_m - w[1]),
            (p.ct_mxp0.0, w[4]),
            (p.ct_mxp0.1, w[5]),
        ]);
        self.apk -= w[5] * p.tau;
        // R2: x_m·c_xpi + c_alpha − Σ o_alpha_i·g_i − o_r·h = 0.
        // R3: c_beta − β·G − o_beta·h = 0.
        // R5: c_d + x_p·(y·c_pi + c_xpi) − x_p·z·Σ g_i − Σ ã_i·g_i − r̃·h = 0.
        // R6: c_sdelta + x_p·c_cdelta − Σ_{i<n−1} (x_p·b̃_{i+1} − b̃_i·ã_{i+1})·g_i − s̃·h = 0.
        let xz = x_p * c.z;
        for (i, g) in self.g.iter_mut().enumerate() {
            let v = if i + 1 < n {
                x_p * p.b_tilde[i + 1] - p.b_tilde[i] * p.a_tilde[i + 1]
            } else {
                Scalar::zero()
            };
            *g -= w[2] * p.o_alpha[i] + w[6] * (xz + p.a_tilde[i]) + w[7] * v;
        }
        self.h -= w[2] * p.o_r + w[3] * p.o_beta + w[6] * p.r_tilde + w[7] * p.s_tilde;
        self.generator -= w[3] * p.beta + w[4] * p.tau + w[5] * p.beta;
        self.own.extend([
            (p.c_xpi, w[2] * x_m + w[6] * x_p),
            (p.c_alpha, w[2]),
            (p.c_beta, w[3]),
            (p.c_pi, w[6] * x_p * y),
            (p.c_d, w[6]),
            (p.c_sdelta, w[7]),
            (p.c_cdelta, w[7] * x_p),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn key(rng: &mut ChaCha20Rng) -> Affine {
        (generator() * Scalar::rand(rng)).into_affine()
    }

    #[test]
    fn round_trip_for_many_sizes() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let apk = key(&mut rng);
        for n in [2usize, 3, 5, 17, 53, 136] {
            let gens = generators(n);
            let prev = gens.initial_deck(n);
            let prev_bytes = &gens.initial_bytes[..n * CIPHERTEXT_LEN];
            let prev = DeckRef {
                cards: &prev,
                bytes: prev_bytes,
            };
            let out = shuffle_and_prove(&mut rng, &apk, prev, b"ctx").unwrap();
            assert_eq!(out.proof_bytes.len(), proof_len(n));
            let back = ShuffleArgument::from_bytes(n, &out.proof_bytes).unwrap();
            assert!(back == out.proof);
            let next = DeckRef {
                cards: &out.cards,
                bytes: &out.bytes,
            };
            let st = Statement {
                apk,
                prev,
                next,
                ctx: b"ctx",
            };
            assert!(verify(&st, &back), "{n}");
            assert!(!verify(
                &Statement {
                    ctx: b"other",
                    ..st
                },
                &back
            ));
            // A second step on top of the first.
            let again = shuffle_and_prove(&mut rng, &apk, next, b"ctx2").unwrap();
            let st2 = Statement {
                apk,
                prev: next,
                next: DeckRef {
                    cards: &again.cards,
                    bytes: &again.bytes,
                },
                ctx: b"ctx2",
            };
            assert!(verify(&st2, &again.proof));
            assert!(!verify(&Statement { prev, ..st2 }, &again.proof));
        }
    }
}
