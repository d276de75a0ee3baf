//! A deck shuffle as a seat's client makes and checks one, to compare the page's speed with the
//! terminal's (BENCHMARKS.md, "The browser page"). Seat 0's shuffle is made once; each `prove`
//! is seat 1 shuffling on top of it with its proof, each `verify` another client checking that
//! step from its bytes. The keys come from a fixed seed: this measures, it never deals.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use tolerance::fair::{
    keygen, shuffle_verified, verify_public_share, verify_shuffle_bytes, Context, JointKey,
    SecretShare, Step, VerifiedDeck,
};
use wasm_bindgen::prelude::*;

const TABLE: [u8; 32] = [0x5b; 32];

fn ctx(seat: u16) -> Context {
    let mut actor = [0xa0; 32];
    actor[..2].copy_from_slice(&seat.to_be_bytes());
    Context::new(TABLE, 1, seat, actor)
}

fn shuffle_ctx(seat: u16) -> Context {
    ctx(seat).with_step(Step::Shuffle { index: seat })
}

#[wasm_bindgen]
pub struct ShuffleBench {
    size: usize,
    key: JointKey,
    second: SecretShare,
    first: VerifiedDeck,
    step: Option<(Vec<u8>, Vec<u8>)>,
}

#[wasm_bindgen]
impl ShuffleBench {
    /// Two seats' keys and seat 0's shuffle of a `size`-card deck.
    #[wasm_bindgen(constructor)]
    pub fn new(size: usize) -> Result<ShuffleBench, JsError> {
        let fail = |e: tolerance::fair::FairError| JsError::new(&e.to_string());
        let mut secrets = Vec::new();
        let mut verified = Vec::new();
        for s in 0..2u16 {
            let mut rng = ChaCha20Rng::seed_from_u64(1000 + u64::from(s));
            let (secret, public) = keygen(&mut rng, &ctx(s)).map_err(fail)?;
            verified.push(verify_public_share(&ctx(s), &public).map_err(fail)?);
            secrets.push(secret);
        }
        let key = JointKey::from_seats(&verified).map_err(fail)?;
        let (first, _) =
            shuffle_verified(&secrets[0], &shuffle_ctx(0), &key, size, None).map_err(fail)?;
        Ok(ShuffleBench {
            size,
            key,
            second: secrets.swap_remove(1),
            first,
            step: None,
        })
    }

    /// Seat 1 shuffles and proves (the prover checks its own proof, as a client does).
    pub fn prove(&mut self) -> Result<(), JsError> {
        let (deck, proof) = shuffle_verified(
            &self.second,
            &shuffle_ctx(1),
            &self.key,
            self.size,
            Some(&self.first),
        )
        .map_err(|e| JsError::new(&e.to_string()))?;
        self.step = Some((deck.deck().to_bytes().to_vec(), proof.to_bytes().to_vec()));
        Ok(())
    }

    /// Another client checks seat 1's step from its bytes.
    pub fn verify(&self) -> Result<(), JsError> {
        let (deck, proof) = self
            .step
            .as_ref()
            .ok_or_else(|| JsError::new("prove first"))?;
        verify_shuffle_bytes(
            &shuffle_ctx(1),
            &self.key,
            self.size,
            Some(&self.first),
            deck,
            proof,
        )
        .map(|_| ())
        .map_err(|e| JsError::new(&e.to_string()))
    }
}
