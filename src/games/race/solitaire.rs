//! What a raced solitaire is made of besides the race: the [`Solitaire`] trait a game implements
//! (its places, moves, checks and score), and the small types every race shares — its setup's
//! entrants, an entrant's [`Status`], a [`Verdict`], the [`Phase`].

use super::cards::{Reshuffles, Spot};
use crate::cards::{CardId, DeckSpec};
use crate::engine::{RuleError, Seat};
use serde::de::{DeserializeOwned, IntoDeserializer};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::Debug;
use std::hash::Hash;

/// The card at a spot of an entrant's game, where it is known (`None` face down).
pub type Face<'a> = &'a dyn Fn(Spot) -> Option<CardId>;

/// What differs from one raced solitaire to another: the rest (who acts, sealed decisions
/// applied together, the deals, the shows, the verdicts, the leaderboard) is [`super::Race`]'s.
///
/// An entrant's game has two halves. Its *places* say where each of its cards lies, by spot:
/// every client follows them from the moves' form alone. What the faces make of them beyond that
/// (Scoundrel's health and weapon) is its *tally*, known where the cards are: to the entrant's
/// own client as it plays, to everyone once the cards are shown; a game whose places say
/// everything keeps `()`.
pub trait Solitaire: Clone + Debug + PartialEq + Send + Sync + 'static {
    /// The game's name on the wire ([`crate::engine::Game::NAME`]).
    const NAME: &'static str;
    /// Its name for people ("The Bogey").
    const TITLE: &'static str;
    /// A race of it, as in "a Bogey race".
    const RACE: &'static str;
    /// What one of an entrant's decisions is called in a refusal ("turn 3: …").
    const MOVE: &'static str;
    /// The move that stops an entrant, also made for one whose time ran out.
    const GIVE_UP: Self::Action;

    type Setup: RaceSetup;
    /// One decision; its serde JSON is a sealed move on the wire.
    type Action: Clone + Debug + Ord + Eq + Hash + Serialize + DeserializeOwned + Send + Sync;
    type Places: Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send + Sync;
    type Tally: Clone
        + Debug
        + Default
        + PartialEq
        + Eq
        + Serialize
        + DeserializeOwned
        + Send
        + Sync;
    /// How a game ends by its rules (escaped, lost to the bogey, …).
    type End: Ending;
    /// What a verified game scored, the score and its parts.
    type Verified: Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send + Sync;
    /// An entrant's game as one viewer sees it.
    type Board: Clone + Debug + PartialEq + Serialize + Send + Sync;

    /// The race's deck ([`super::DECK`]).
    fn deck(setup: &Self::Setup) -> DeckSpec;
    /// Entrant `seat`'s places before its first move, its first cards drawn.
    fn places(setup: &Self::Setup, seat: Seat) -> Self::Places;
    /// The piles reshuffled into new decks so far, for games that reshuffle.
    fn reshuffles(places: &Self::Places) -> Option<&Reshuffles> {
        let _ = places;
        None
    }
    /// The spots the entrant has drawn (each is dealt to it sealed, once).
    fn drawn(places: &Self::Places) -> Vec<Spot>;
    /// Every spot of the entrant's game, wherever it lies.
    fn spots(places: &Self::Places) -> Vec<Spot>;
    /// The places after `a`, checked in form only: what every client can check.
    fn after(places: &Self::Places, a: &Self::Action) -> Result<Self::Places, String>;
    /// Checks `a`, made at `places`, against the entrant's cards and carries `tally` over it.
    fn check(
        places: &Self::Places,
        tally: &mut Self::Tally,
        a: &Self::Action,
        face: Face,
    ) -> Result<(), String>;
    /// How the entrant stands after `a` brought it to `next`.
    fn status_after(a: &Self::Action, next: &Self::Places) -> Status<Self::End>;
    /// The moves the cards allow (`None` while one is not known), give-up included.
    fn moves(places: &Self::Places, tally: &Self::Tally, face: Face) -> Option<Vec<Self::Action>>;
    /// A verified game's score and its parts, as it ended (`status`, or stopped by the race).
    fn verified(
        places: &Self::Places,
        tally: &Self::Tally,
        status: Status<Self::End>,
    ) -> Self::Verified;
    fn score(v: &Self::Verified) -> i32;
    /// The game's own invariants, beyond every spot lying once: `face` where known, the tally
    /// where this client can tell it.
    fn invariants(
        places: &Self::Places,
        tally: Option<&Self::Tally>,
        face: Face,
    ) -> Result<(), String>;
    /// Moves worth trying against the rules' refusals (the generic simulation's probes).
    fn probes() -> Vec<Self::Action>;
    /// The game at `places` as `seen` shows its cards; its tally where the viewer may know it.
    fn board(places: &Self::Places, seen: Face, tally: Option<Self::Tally>) -> Self::Board;
}

/// A race's setup: how many enter, and whatever else the game's table announces.
pub trait RaceSetup:
    Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    fn players(&self) -> u8;
    /// What else the setup must hold, in words.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The setup of a race that announces nothing but its entrants. Its serde JSON is the table's
/// announcement (`{"players": 3}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entrants {
    /// Entrants racing the one deal (1 plays a practice game alone).
    pub players: u8,
}

impl RaceSetup for Entrants {
    fn players(&self) -> u8 {
        self.players
    }
}

/// Checks a race's setup: 1 to 6 entrants, then the game's own.
pub fn validate<R: Solitaire>(setup: &R::Setup) -> Result<(), RuleError> {
    let n = setup.players();
    if !(1..=6).contains(&n) {
        return Err(RuleError::Setup(format!(
            "a {} race takes 1 to 6 entrants, not {n}",
            R::RACE
        )));
    }
    setup.check().map_err(RuleError::Setup)
}

/// How a solitaire ends by its own rules; the ways every race shares are [`Status`]'s.
pub trait Ending:
    Copy + Debug + PartialEq + Eq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// An entrant still playing, in words ("is still playing").
    const STILL: &'static str = "is still playing";
    /// The same beside a name in a list.
    const PLAYING: &'static str = "playing";
    /// What became of the entrant, in words ("escaped").
    fn words(self) -> &'static str;
    /// The state beside a name in a list.
    fn label(self) -> &'static str;
}

/// How an entrant's game stands, as everyone knows it. Its JSON is one word: the game's own
/// ending's ("escaped", "lost") or the race's ("playing", "gave_up", "stopped", "left").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status<E> {
    Playing,
    /// Ended by the game's rules (a claim checked once the cards are shown).
    Ended(E),
    GaveUp,
    /// Still playing when the race had to stop (another entrant left).
    Stopped,
    /// Removed from the race by the table: no score.
    Left,
}

impl<E: Ending> Status<E> {
    /// What became of the entrant, in words.
    pub fn words(self) -> &'static str {
        match self {
            Status::Playing => E::STILL,
            Status::Ended(e) => e.words(),
            Status::GaveUp => "gave up",
            Status::Stopped => "was stopped by the end of the race",
            Status::Left => "left the race",
        }
    }

    /// The state beside a name in a list.
    pub fn label(self) -> &'static str {
        match self {
            Status::Playing => E::PLAYING,
            Status::Ended(e) => e.label(),
            Status::GaveUp => "gave up",
            Status::Stopped => "stopped",
            Status::Left => "left the race",
        }
    }

    /// Ended by the rules or given up: a score that may win.
    pub fn finished(self) -> bool {
        matches!(self, Status::Ended(_) | Status::GaveUp)
    }
}

const PLAYING: &str = "playing";
const GAVE_UP: &str = "gave_up";
const STOPPED: &str = "stopped";
const LEFT: &str = "left";

// By hand, so that a game's ending reads as one word beside the race's own: the JSON every
// report and script printed before the races shared one status.
impl<E: Serialize> Serialize for Status<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Status::Playing => s.serialize_str(PLAYING),
            Status::Ended(e) => e.serialize(s),
            Status::GaveUp => s.serialize_str(GAVE_UP),
            Status::Stopped => s.serialize_str(STOPPED),
            Status::Left => s.serialize_str(LEFT),
        }
    }
}

impl<'de, E: DeserializeOwned> Deserialize<'de> for Status<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        Ok(match word.as_str() {
            PLAYING => Status::Playing,
            GAVE_UP => Status::GaveUp,
            STOPPED => Status::Stopped,
            LEFT => Status::Left,
            other => Status::Ended(E::deserialize(other.into_deserializer())?),
        })
    }
}

/// How an entrant's game was judged once its cards were shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict<V> {
    /// Every move followed from the cards: the score stands.
    Verified(V),
    /// A move did not follow from the cards: no score.
    Refused { reason: String },
    /// Removed from the race.
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The deck is shuffled and the first cards dealt.
    Start,
    /// Entrants decide (sealed, all at once), then the cards they draw are dealt.
    Racing,
    /// Every card drawn is shown by an entrant who holds it.
    Showing,
    Over,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum End {
        AllFour,
    }

    impl Ending for End {
        fn words(self) -> &'static str {
            "got all four"
        }
        fn label(self) -> &'static str {
            "all four"
        }
    }

    #[test]
    fn a_status_reads_as_one_word_the_games_ending_or_the_races() {
        let all = [
            (Status::Playing, "\"playing\""),
            (Status::Ended(End::AllFour), "\"all_four\""),
            (Status::GaveUp, "\"gave_up\""),
            (Status::Stopped, "\"stopped\""),
            (Status::Left, "\"left\""),
        ];
        for (s, json) in all {
            assert_eq!(serde_json::to_string(&s).unwrap(), json);
            assert_eq!(serde_json::from_str::<Status<End>>(json).unwrap(), s);
        }
        assert!(serde_json::from_str::<Status<End>>("\"won\"").is_err());
        assert_eq!(Status::Ended(End::AllFour).words(), "got all four");
        assert_eq!(Status::<End>::Playing.words(), "is still playing");
        assert!(Status::<End>::GaveUp.finished() && !Status::<End>::Stopped.finished());
    }
}
