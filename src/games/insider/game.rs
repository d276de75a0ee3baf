//! Insider: the rules (`protocol/rules/insider.md`). A Master chosen by lot, an Insider and
//! Commons dealt from a role deck the Master holds no share of, a word only the Master and the
//! Insider learn (the Master's private roll, whispered to whoever holds the Insider card), yes/no
//! questions and guesses against a timer kept on the log's time, two votes, the second one sealed.
//! Everything hidden is opened at the end, so a Master who cheated is caught.

use super::words::{self, normal, Tag, Word};
use crate::cards::{CardId, DeckSpec};
use crate::engine::{
    check_chance_batch, check_forfeit, illegal, ChanceOutcome, ChanceRequest, ForfeitReason, Game,
    Outcome, RuleError, Seat, ToAct,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The role deck's id.
pub const ROLE_DECK: u32 = 0;
/// The Insider card (position 0 of the role deck's composition).
pub const INSIDER_CARD: CardId = CardId(0);
/// Longest question or line of talk, and longest guess, in characters.
pub const MAX_TEXT: usize = 200;
pub const MAX_GUESS: usize = 40;
/// How many of the word list's words a Common's list of guesses offers (a person types any).
const GUESSES_OFFERED: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Master,
    Insider,
    Common,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Master => "the Master",
            Role::Insider => "the Insider",
            Role::Common => "a Common",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Yes,
    No,
    DontKnow,
}

impl Answer {
    pub fn word(self) -> &'static str {
        match self {
            Answer::Yes => "yes",
            Answer::No => "no",
            Answer::DontKnow => "don't know",
        }
    }
}

/// A move.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The Master takes word card `k` of the ones it drew.
    Pick(u8),
    /// A yes/no question to the Master.
    Ask(String),
    /// A guess of the word.
    Guess(String),
    /// Nothing to ask this turn.
    Pass,
    /// The Master answers the question.
    Answer(Answer),
    /// The Master says whether the guess is the word (checked once the word is opened).
    Judge(bool),
    /// A line in the discussion before the votes.
    Say(String),
    /// Nothing more to say.
    Ready,
    /// First vote: is the one who guessed the word the Insider?
    Accuse(bool),
    /// Second vote: who is the Insider (`None`: no vote, a missed deadline's move).
    Point(Option<Seat>),
    /// The Master settles a tie of the second vote.
    Break(Seat),
}

impl Action {
    /// What kind of move this is, in words, for a refusal ("a guess is not allowed now").
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Pick(_) => "picking a word card",
            Action::Ask(_) => "a question",
            Action::Guess(_) => "a guess",
            Action::Pass => "passing",
            Action::Answer(_) => "an answer",
            Action::Judge(_) => "judging the guess",
            Action::Say(_) => "a word in the discussion",
            Action::Ready => "saying you are ready",
            Action::Accuse(_) => "the first vote",
            Action::Point(_) => "the second vote",
            Action::Break(_) => "settling the tie",
        }
    }
}

/// The table's settings (`TableSpec.setup`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    /// The timer, in the log's seconds.
    #[serde(default = "default_seconds")]
    pub seconds: u32,
    /// The word list (shipped lists only).
    #[serde(default = "default_words")]
    pub words: String,
    /// Word cards the Master draws to pick its word from.
    #[serde(default = "default_choices")]
    pub choices: u8,
    /// Asking turns after which the timer counts as run out even if the log's clock has not
    /// (engine-only play and simulations have no clock).
    #[serde(default = "default_turns")]
    pub turns: u32,
}

fn default_seconds() -> u32 {
    300
}
fn default_words() -> String {
    words::NOUNS_1.into()
}
fn default_choices() -> u8 {
    3
}
fn default_turns() -> u32 {
    400
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            seconds: default_seconds(),
            words: default_words(),
            choices: default_choices(),
            turns: default_turns(),
        }
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        let bad = |s: String| Err(RuleError::Setup(s));
        if !(4..=8).contains(&self.players) {
            return bad(format!(
                "Insider seats 4 to 8 players, not {}",
                self.players
            ));
        }
        if !(10..=3600).contains(&self.seconds) {
            return bad(format!(
                "the timer runs 10 to 3600 seconds, not {}",
                self.seconds
            ));
        }
        if words::list(&self.words).is_none() {
            return bad(format!(
                "'{}' is not a word list this program ships ({})",
                self.words,
                words::NOUNS_1
            ));
        }
        if !(1..=8).contains(&self.choices) {
            return bad(format!(
                "the Master draws 1 to 8 word cards, not {}",
                self.choices
            ));
        }
        if !(1..=10_000).contains(&self.turns) {
            return bad(format!("1 to 10000 asking turns, not {}", self.turns));
        }
        Ok(())
    }

    pub fn list(&self) -> &'static [Word] {
        words::list(&self.words).unwrap_or(&[])
    }
}

/// What a question, guess or line of talk got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Said {
    Question {
        text: String,
        answer: Option<Answer>,
    },
    Guess {
        word: String,
        right: Option<bool>,
    },
    Talk {
        text: String,
    },
}

/// One line of the table's talk, with the log's time it was made (once known).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Qa {
    pub seat: Seat,
    pub said: Said,
    pub at: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// The lot for the Master and the private draw of word cards.
    Lot,
    /// The role cards are dealt to everyone but the Master.
    Roles,
    /// The Master picks its word.
    Pick,
    /// The word goes to the Insider.
    Whisper,
    /// Questions and guesses; `turn` counts asking turns.
    Ask {
        turn: u32,
    },
    /// The discussion before the votes; `turn` counts its turns, `quiet` the passes in a row.
    Talk {
        turn: u32,
        quiet: u32,
    },
    Vote1,
    Vote2,
    /// The Master settles a tie of the second vote.
    TieBreak,
    /// The role cards are shown.
    Roles2,
    /// The word is opened and the Master's judgments checked.
    Open,
    Done,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum End {
    /// The timer ran out before the word was guessed: everyone loses.
    TimeUp,
    /// The first vote accused the one who guessed the word.
    FirstVote { accused: Seat },
    /// The second vote (or the Master's tie-break) accused a seat.
    SecondVote { accused: Seat },
    /// The table removed seats: nobody wins.
    Removed { seats: Vec<Seat> },
}

/// The public record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    Master {
        seat: Seat,
    },
    Picked,
    WordGiven,
    TimerStarts {
        seconds: u32,
    },
    Asked {
        seat: Seat,
        text: String,
    },
    Answered {
        answer: Answer,
    },
    Guessed {
        seat: Seat,
        word: String,
    },
    Judged {
        right: bool,
    },
    Passed {
        seat: Seat,
    },
    TimeUp,
    Said {
        seat: Seat,
        text: String,
    },
    Votes1 {
        yes: Vec<Seat>,
        no: Vec<Seat>,
    },
    Votes2 {
        points: Vec<(Seat, Option<Seat>)>,
    },
    Tie {
        seats: Vec<Seat>,
    },
    Broke {
        seat: Seat,
    },
    Accused {
        seat: Seat,
    },
    RolesShown {
        insider: Option<Seat>,
    },
    WordShown {
        word: String,
    },
    Misjudged {
        seat: Seat,
        word: String,
        said: bool,
    },
    Removed {
        seats: Vec<Seat>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Insider {
    pub setup: Setup,
    pub removed: Vec<Seat>,
    pub phase: Phase,
    pub master: Option<Seat>,
    /// The Master's drawn dice (word cards), where this client knows them: the Master's own,
    /// the Insider's through the whisper, everyone's once opened.
    dice: Option<Vec<u8>>,
    pub pick: Option<u8>,
    /// Roles this client knows: its own, the Master's, all once shown.
    roles: BTreeMap<Seat, Role>,
    /// The role deck position each non-Master was dealt.
    role_pos: BTreeMap<Seat, u16>,
    /// The log's time at the step now open (Game::clock).
    pub now: u64,
    pub started: Option<u64>,
    pub talk_until: Option<u64>,
    /// The line awaiting the Master's answer or judgment.
    awaiting: Option<usize>,
    pub qa: Vec<Qa>,
    pub guesser: Option<Seat>,
    votes1: BTreeMap<Seat, bool>,
    votes2: BTreeMap<Seat, Option<Seat>>,
    pub tied: Vec<Seat>,
    pub accused: Option<Seat>,
    pub end: Option<End>,
    /// The word, once opened for everyone.
    pub shown_word: Option<String>,
    /// The word went to the Insider; the role cards were shown.
    given: bool,
    roles_shown: bool,
    pub misjudged: bool,
    pending: Vec<ChanceRequest>,
    pub log: Vec<Entry>,
}

impl Insider {
    pub fn new(setup: &Setup) -> Result<Insider, RuleError> {
        setup.validate()?;
        let n = setup.players;
        let mut pending = vec![ChanceRequest::RollPublic {
            sides: n,
            count: 1,
            by: None,
        }];
        // Every seat draws its word cards privately (only the Master's are ever used): the Master
        // is not known yet when the batch is asked for, and one batch costs one pass.
        for s in 0..n {
            pending.push(ChanceRequest::RollPrivate {
                owner: s,
                sides: 100,
                count: 2 * setup.choices,
            });
        }
        Ok(Insider {
            setup: setup.clone(),
            removed: Vec::new(),
            phase: Phase::Lot,
            master: None,
            dice: None,
            pick: None,
            roles: BTreeMap::new(),
            role_pos: BTreeMap::new(),
            now: 0,
            started: None,
            talk_until: None,
            awaiting: None,
            qa: Vec::new(),
            guesser: None,
            votes1: BTreeMap::new(),
            votes2: BTreeMap::new(),
            tied: Vec::new(),
            accused: None,
            end: None,
            shown_word: None,
            given: false,
            roles_shown: false,
            misjudged: false,
            pending,
            log: Vec::new(),
        })
    }

    pub fn players(&self) -> Vec<Seat> {
        (0..self.setup.players).collect()
    }

    /// Everyone but the Master, clockwise from the Master's left: the askers' order.
    pub fn askers(&self) -> Vec<Seat> {
        let n = self.setup.players;
        let m = self.master.unwrap_or(0);
        (1..n).map(|k| (m + k) % n).collect()
    }

    /// Word card `k` of dice `d`: two d100 make a number 0–9999, taken modulo the list's length.
    fn card_word(&self, d: &[u8], k: usize) -> Option<&'static str> {
        let list = self.setup.list();
        let (a, b) = (*d.get(2 * k)?, *d.get(2 * k + 1)?);
        let i = (usize::from(a) - 1) * 100 + usize::from(b) - 1;
        list.get(i % list.len()).map(|w| w.word.as_str())
    }

    /// The Master's word cards, where this client knows them.
    pub fn cards(&self) -> Vec<&'static str> {
        let Some(d) = &self.dice else {
            return Vec::new();
        };
        (0..usize::from(self.setup.choices))
            .filter_map(|k| self.card_word(d, k))
            .collect()
    }

    /// The word, where this client knows it.
    pub fn word(&self) -> Option<&'static str> {
        let d = self.dice.as_ref()?;
        self.card_word(d, usize::from(self.pick?))
    }

    pub fn role_of(&self, seat: Seat) -> Option<Role> {
        self.roles.get(&seat).copied()
    }

    /// The seat holding the Insider card, where this client knows it.
    pub fn insider(&self) -> Option<Seat> {
        self.roles
            .iter()
            .find(|(_, r)| **r == Role::Insider)
            .map(|(s, _)| *s)
    }

    fn asker(&self) -> Option<Seat> {
        match self.phase {
            Phase::Ask { turn } => {
                let a = self.askers();
                a.get(turn as usize % a.len()).copied()
            }
            _ => None,
        }
    }

    fn talker(&self) -> Option<Seat> {
        match self.phase {
            Phase::Talk { turn, .. } => {
                // From the seat after the one who guessed, around the whole table.
                let n = self.setup.players;
                let g = self.guesser.unwrap_or(0);
                Some((g + 1 + (turn % u32::from(n)) as u8) % n)
            }
            _ => None,
        }
    }

    /// The seat whose move the table waits for in a one-seat phase.
    fn mover(&self) -> Option<Seat> {
        if !self.pending.is_empty() {
            return None;
        }
        match self.phase {
            Phase::Pick | Phase::TieBreak => self.master,
            Phase::Ask { .. } if self.awaiting.is_some() => self.master,
            Phase::Ask { .. } => self.asker(),
            Phase::Talk { .. } => self.talker(),
            _ => None,
        }
    }

    fn voters(&self) -> Vec<Seat> {
        self.players()
            .into_iter()
            .filter(|s| !self.removed.contains(s))
            .collect()
    }

    /// Words the public answers and wrong guesses leave possible (the bots' questions only).
    pub fn possible(&self) -> Vec<&'static str> {
        possible_words(self.setup.list(), &self.qa)
    }

    /// Seats a vote may point at: everyone but the Master and the voter.
    fn pointable(&self, voter: Seat) -> Vec<Seat> {
        self.players()
            .into_iter()
            .filter(|s| Some(*s) != self.master && *s != voter)
            .collect()
    }

    fn pending_line(&self) -> Option<&Qa> {
        self.awaiting.and_then(|i| self.qa.get(i))
    }

    fn next_asking_turn(&mut self, turn: u32) {
        self.awaiting = None;
        if turn + 1 >= self.setup.turns {
            // No clock moves an engine-only game: a number of turns stands in for the timer.
            self.time_up();
        } else {
            self.phase = Phase::Ask { turn: turn + 1 };
        }
    }

    fn time_up(&mut self) {
        self.awaiting = None;
        self.log.push(Entry::TimeUp);
        self.end = Some(End::TimeUp);
        self.show_roles();
    }

    fn show_roles(&mut self) {
        self.phase = Phase::Roles2;
        let n = u16::from(self.setup.players) - 1;
        self.pending = (0..n)
            .map(|position| ChanceRequest::Reveal {
                deck: ROLE_DECK,
                position,
            })
            .collect();
    }

    fn accuse(&mut self, seat: Seat, first: bool) {
        self.accused = Some(seat);
        self.log.push(Entry::Accused { seat });
        self.end = Some(if first {
            End::FirstVote { accused: seat }
        } else {
            End::SecondVote { accused: seat }
        });
        self.show_roles();
    }

    fn all_voted1(&mut self) {
        let yes: Vec<Seat> = self
            .votes1
            .iter()
            .filter(|(_, v)| **v)
            .map(|(s, _)| *s)
            .collect();
        let no: Vec<Seat> = self
            .votes1
            .iter()
            .filter(|(_, v)| !**v)
            .map(|(s, _)| *s)
            .collect();
        let voters = yes.len() + no.len();
        self.log.push(Entry::Votes1 {
            yes: yes.clone(),
            no,
        });
        // A majority of the votes, not a tie.
        if 2 * yes.len() > voters {
            let g = self.guesser.expect("a guesser");
            self.accuse(g, true);
        } else {
            self.phase = Phase::Vote2;
        }
    }

    fn all_voted2(&mut self) {
        self.log.push(Entry::Votes2 {
            points: self.votes2.iter().map(|(s, p)| (*s, *p)).collect(),
        });
        let mut count: BTreeMap<Seat, usize> = self
            .players()
            .into_iter()
            .filter(|s| Some(*s) != self.master)
            .map(|s| (s, 0))
            .collect();
        for p in self.votes2.values().flatten() {
            *count.entry(*p).or_default() += 1;
        }
        let most = count.values().copied().max().unwrap_or(0);
        let tied: Vec<Seat> = count
            .iter()
            .filter(|(_, c)| **c == most)
            .map(|(s, _)| *s)
            .collect();
        if tied.len() == 1 {
            self.accuse(tied[0], false);
        } else {
            self.log.push(Entry::Tie {
                seats: tied.clone(),
            });
            self.tied = tied;
            self.phase = Phase::TieBreak;
        }
    }

    /// Who won, once the roles are shown.
    fn winners(&self) -> Vec<Seat> {
        let insider = self.insider();
        match &self.end {
            None | Some(End::TimeUp) | Some(End::Removed { .. }) => Vec::new(),
            Some(End::FirstVote { accused }) | Some(End::SecondVote { accused }) => {
                if Some(*accused) == insider {
                    self.players()
                        .into_iter()
                        .filter(|s| Some(*s) != insider)
                        .collect()
                } else {
                    insider.into_iter().collect()
                }
            }
        }
    }

    fn legal(&self, seat: Seat) -> Vec<Action> {
        if self.phase == Phase::Done || !self.pending.is_empty() {
            return Vec::new();
        }
        let mut v = match self.phase {
            Phase::Vote1 if self.voters().contains(&seat) && !self.votes1.contains_key(&seat) => {
                vec![Action::Accuse(false), Action::Accuse(true)]
            }
            Phase::Vote2 if self.voters().contains(&seat) && !self.votes2.contains_key(&seat) => {
                self.pointable(seat)
                    .into_iter()
                    .map(|s| Action::Point(Some(s)))
                    .collect()
            }
            _ if self.mover() != Some(seat) => Vec::new(),
            Phase::Pick => (0..self.setup.choices).map(Action::Pick).collect(),
            Phase::TieBreak => self.tied.iter().map(|s| Action::Break(*s)).collect(),
            Phase::Ask { .. } => match self.pending_line() {
                Some(Qa {
                    said: Said::Question { .. },
                    ..
                }) => vec![
                    Action::Answer(Answer::Yes),
                    Action::Answer(Answer::No),
                    Action::Answer(Answer::DontKnow),
                ],
                Some(Qa {
                    said: Said::Guess { word, .. },
                    ..
                }) => match self.word() {
                    // The Master knows the word: an honest client offers only the truth (any
                    // verdict is accepted, and checked once the word is opened).
                    Some(w) => vec![Action::Judge(normal(word) == w)],
                    None => vec![Action::Judge(false), Action::Judge(true)],
                },
                _ => {
                    let mut v = vec![Action::Pass];
                    v.extend(
                        Tag::ALL
                            .iter()
                            .map(|t| Action::Ask(t.question().to_string())),
                    );
                    v.extend(
                        self.possible()
                            .into_iter()
                            .take(GUESSES_OFFERED)
                            .map(|w| Action::Guess(w.to_string())),
                    );
                    // The Insider knows the word; so does its list.
                    if self.role_of(seat) == Some(Role::Insider) && self.knows_word(Some(seat)) {
                        if let Some(w) = self.word() {
                            v.push(Action::Guess(w.to_string()));
                        }
                    }
                    v
                }
            },
            Phase::Talk { .. } => vec![Action::Ready, Action::Say("I think it is…".into())],
            _ => Vec::new(),
        };
        v.sort();
        v.dedup();
        v
    }

    /// Whether `viewer` knows the word before it is opened: the Master, and the Insider once it
    /// was whispered.
    fn knows_word(&self, viewer: Option<Seat>) -> bool {
        match viewer.and_then(|v| self.roles.get(&v)) {
            Some(Role::Master) => true,
            Some(Role::Insider) => self.given,
            _ => false,
        }
    }

    fn check_text(seat: Seat, text: &str, max: usize) -> Result<(), RuleError> {
        let t = text.trim();
        if t.is_empty() || t.chars().count() > max || t.chars().any(char::is_control) {
            return Err(illegal(
                seat,
                format!("a line of 1 to {max} characters, without control characters"),
            ));
        }
        Ok(())
    }
}

/// The words of `list` that every answered bot question and every wrong guess in `qa` leaves
/// possible.
pub fn possible_words(list: &'static [Word], qa: &[Qa]) -> Vec<&'static str> {
    let mut facts: Vec<(Tag, bool)> = Vec::new();
    let mut wrong: Vec<String> = Vec::new();
    for q in qa {
        match &q.said {
            Said::Question {
                text,
                answer: Some(a),
            } => {
                if let (Some(t), Answer::Yes | Answer::No) = (Tag::of_question(text), a) {
                    facts.push((t, *a == Answer::Yes));
                }
            }
            Said::Guess {
                word,
                right: Some(false),
            } => wrong.push(normal(word)),
            _ => {}
        }
    }
    list.iter()
        .filter(|w| facts.iter().all(|(t, yes)| w.tags.contains(t) == *yes))
        .filter(|w| !wrong.contains(&w.word))
        .map(|w| w.word.as_str())
        .collect()
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InsiderView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub players: u8,
    pub master: Option<Seat>,
    /// The viewer's own role, once dealt.
    pub role: Option<Role>,
    /// Roles everyone knows: the Master's, and all of them at the end.
    pub roles: Vec<(Seat, Role)>,
    /// The word, for the Master and the Insider (everyone at the end).
    pub word: Option<String>,
    /// The Master's word cards while it picks.
    pub cards: Vec<String>,
    pub seconds: u32,
    pub now: u64,
    pub started: Option<u64>,
    pub talk_until: Option<u64>,
    pub to_act: Vec<Seat>,
    pub qa: Vec<Qa>,
    /// The words the answers so far leave possible (the bots' questions only).
    pub possible: usize,
    pub guesser: Option<Seat>,
    pub tied: Vec<Seat>,
    pub accused: Option<Seat>,
    pub end: Option<End>,
    pub winners: Vec<Seat>,
    pub legal: Vec<Action>,
    pub log: Vec<Entry>,
}

impl Game for Insider {
    type Action = Action;
    type View = InsiderView;
    const NAME: &'static str = "insider";
    const KEEPS_TIME: bool = true;

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Done => ToAct::Terminal,
            Phase::Vote1 => ToAct::Sealed(
                self.voters()
                    .into_iter()
                    .filter(|s| !self.votes1.contains_key(s))
                    .collect(),
            ),
            Phase::Vote2 => ToAct::Sealed(
                self.voters()
                    .into_iter()
                    .filter(|s| !self.votes2.contains_key(s))
                    .collect(),
            ),
            _ => match self.mover() {
                Some(s) => ToAct::Seat(s),
                None => ToAct::Terminal,
            },
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        self.legal(seat)
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        let turn_of = |g: &Insider| match g.to_act() {
            ToAct::Seat(s) => s == seat,
            ToAct::Sealed(v) => v.contains(&seat),
            _ => false,
        };
        if !turn_of(self) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            });
        }
        match (self.phase, action) {
            (Phase::Pick, Action::Pick(k)) if *k < self.setup.choices => {
                self.pick = Some(*k);
                self.log.push(Entry::Picked);
                self.phase = Phase::Whisper;
                let positions: Vec<u16> = self.role_pos.values().copied().collect();
                let mut positions = positions;
                positions.sort_unstable();
                self.pending = vec![ChanceRequest::Whisper {
                    owner: self.master.expect("a Master"),
                    roll: 0,
                    deck: ROLE_DECK,
                    card: INSIDER_CARD,
                    positions,
                }];
            }
            (Phase::Ask { turn }, a) => match (self.pending_line().map(|q| &q.said), a) {
                (None, Action::Pass) => {
                    self.log.push(Entry::Passed { seat });
                    self.next_asking_turn(turn);
                }
                (None, Action::Ask(text)) => {
                    Self::check_text(seat, text, MAX_TEXT)?;
                    let text = text.trim().to_string();
                    self.log.push(Entry::Asked {
                        seat,
                        text: text.clone(),
                    });
                    self.qa.push(Qa {
                        seat,
                        said: Said::Question { text, answer: None },
                        at: None,
                    });
                    self.awaiting = Some(self.qa.len() - 1);
                }
                (None, Action::Guess(word)) => {
                    Self::check_text(seat, word, MAX_GUESS)?;
                    let word = normal(word);
                    self.log.push(Entry::Guessed {
                        seat,
                        word: word.clone(),
                    });
                    self.qa.push(Qa {
                        seat,
                        said: Said::Guess { word, right: None },
                        at: None,
                    });
                    self.awaiting = Some(self.qa.len() - 1);
                }
                (Some(Said::Question { .. }), Action::Answer(x)) => {
                    let i = self.awaiting.expect("awaiting");
                    if let Said::Question { answer, .. } = &mut self.qa[i].said {
                        *answer = Some(*x);
                    }
                    self.log.push(Entry::Answered { answer: *x });
                    self.next_asking_turn(turn);
                }
                (Some(Said::Guess { .. }), Action::Judge(right)) => {
                    let i = self.awaiting.expect("awaiting");
                    if let Said::Guess { right: r, .. } = &mut self.qa[i].said {
                        *r = Some(*right);
                    }
                    self.log.push(Entry::Judged { right: *right });
                    if *right {
                        self.guesser = Some(self.qa[i].seat);
                        self.awaiting = None;
                        self.phase = Phase::Talk { turn: 0, quiet: 0 };
                    } else {
                        self.next_asking_turn(turn);
                    }
                }
                (_, a) => return Err(illegal(seat, format!("{} is not allowed now", a.kind()))),
            },
            (Phase::Talk { turn, quiet }, Action::Say(text)) => {
                Self::check_text(seat, text, MAX_TEXT)?;
                let text = text.trim().to_string();
                self.log.push(Entry::Said {
                    seat,
                    text: text.clone(),
                });
                self.qa.push(Qa {
                    seat,
                    said: Said::Talk { text },
                    at: None,
                });
                let _ = quiet;
                self.after_talk(turn, 0);
            }
            (Phase::Talk { turn, quiet }, Action::Ready) => self.after_talk(turn, quiet + 1),
            (Phase::Vote1, Action::Accuse(yes)) => {
                self.votes1.insert(seat, *yes);
                if self.votes1.len() == self.voters().len() {
                    self.all_voted1();
                }
            }
            (Phase::Vote2, Action::Point(p)) => {
                if let Some(p) = p {
                    if !self.pointable(seat).contains(p) {
                        return Err(illegal(
                            seat,
                            "point at a player other than yourself and the Master",
                        ));
                    }
                }
                self.votes2.insert(seat, *p);
                if self.votes2.len() == self.voters().len() {
                    self.all_voted2();
                }
            }
            (Phase::TieBreak, Action::Break(s)) if self.tied.contains(s) => {
                self.log.push(Entry::Broke { seat: *s });
                self.accuse(*s, false);
            }
            (_, a) => return Err(illegal(seat, format!("{} is not allowed now", a.kind()))),
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let spec = role_spec(self.setup.players);
        check_chance_batch(&self.pending, outcomes, |_, o| {
            crate::engine::check_cards(o, &spec, |_| None)?;
            // A shown role card this client was dealt must be the role it was dealt.
            if let ChanceOutcome::Revealed { position, card, .. } = o {
                let holder = self.role_pos.iter().find(|(_, q)| **q == *position);
                if let Some(r) = holder.and_then(|(s, _)| self.roles.get(s)) {
                    if (*r == Role::Insider) != (*card == INSIDER_CARD) {
                        return Err(format!(
                            "role card {position} was dealt as {} but shown as {}",
                            r.name(),
                            spec.name(*card)
                        ));
                    }
                }
            }
            Ok(())
        })?;
        let pending = std::mem::take(&mut self.pending);
        match self.phase {
            Phase::Lot => self.drew_lot(outcomes),
            Phase::Roles => {
                for (req, out) in pending.iter().zip(outcomes) {
                    if let (
                        ChanceRequest::Deal { to, .. },
                        ChanceOutcome::Dealt { card: Some(c), .. },
                    ) = (req, out)
                    {
                        self.roles.insert(
                            to[0],
                            if *c == INSIDER_CARD {
                                Role::Insider
                            } else {
                                Role::Common
                            },
                        );
                    }
                }
                self.phase = Phase::Pick;
            }
            Phase::Whisper => {
                for out in outcomes {
                    if let ChanceOutcome::Whispered {
                        values: Some(v),
                        to,
                        ..
                    } = out
                    {
                        self.dice = Some(v.clone());
                        // Full-information simulation only: a table never says who.
                        if let Some(t) = to {
                            self.roles.insert(*t, Role::Insider);
                        }
                    }
                }
                self.given = true;
                self.log.push(Entry::WordGiven);
                self.log.push(Entry::TimerStarts {
                    seconds: self.setup.seconds,
                });
                self.phase = Phase::Ask { turn: 0 };
            }
            Phase::Roles2 => {
                for out in outcomes {
                    if let ChanceOutcome::Revealed { position, card, .. } = out {
                        if let Some((s, _)) = self.role_pos.iter().find(|(_, p)| **p == *position) {
                            self.roles.insert(
                                *s,
                                if *card == INSIDER_CARD {
                                    Role::Insider
                                } else {
                                    Role::Common
                                },
                            );
                        }
                    }
                }
                self.roles_shown = true;
                self.log.push(Entry::RolesShown {
                    insider: self.insider(),
                });
                self.phase = Phase::Open;
                self.pending = vec![ChanceRequest::OpenWhisper {
                    owner: self.master.expect("a Master"),
                    roll: 0,
                }];
            }
            Phase::Open => self.word_opened(outcomes),
            _ => {
                self.pending = pending;
                return Err(RuleError::BadChance("nothing was asked for".into()));
            }
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> InsiderView {
        let over = self.phase == Phase::Done;
        let own = viewer.and_then(|v| self.roles.get(&v).copied());
        InsiderView {
            viewer,
            phase: self.phase,
            players: self.setup.players,
            master: self.master,
            role: own,
            roles: self
                .roles
                .iter()
                .filter(|(_, r)| **r == Role::Master || self.roles_shown)
                .map(|(s, r)| (*s, *r))
                .collect(),
            word: self.shown_word.clone().or_else(|| {
                self.knows_word(viewer)
                    .then(|| self.word().map(str::to_string))
                    .flatten()
            }),
            cards: if own == Some(Role::Master) && self.phase == Phase::Pick {
                self.cards().into_iter().map(str::to_string).collect()
            } else {
                Vec::new()
            },
            seconds: self.setup.seconds,
            now: self.now,
            started: self.started,
            talk_until: self.talk_until,
            to_act: match self.to_act() {
                ToAct::Seat(s) => vec![s],
                ToAct::Sealed(v) => v,
                _ => Vec::new(),
            },
            qa: self.qa.clone(),
            possible: self.possible().len(),
            guesser: self.guesser,
            tied: self.tied.clone(),
            accused: self.accused,
            end: self.end.clone(),
            winners: if over { self.winners() } else { Vec::new() },
            legal: viewer.map(|v| self.legal(v)).unwrap_or_default(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        if !self.pending.is_empty() {
            return None;
        }
        match self.phase {
            Phase::Vote1 if self.legal(seat).contains(&Action::Accuse(false)) => {
                Some(Action::Accuse(false))
            }
            Phase::Vote2 if !self.legal(seat).is_empty() => Some(Action::Point(None)),
            _ if self.mover() != Some(seat) => None,
            Phase::Pick => Some(Action::Pick(0)),
            Phase::TieBreak => self.tied.first().map(|s| Action::Break(*s)),
            Phase::Ask { .. } => Some(match self.pending_line().map(|q| &q.said) {
                Some(Said::Question { .. }) => Action::Answer(Answer::DontKnow),
                Some(Said::Guess { .. }) => Action::Judge(false),
                _ => Action::Pass,
            }),
            Phase::Talk { .. } => Some(Action::Ready),
            _ => None,
        }
    }

    fn clock(&mut self, now: u64) {
        self.now = self.now.max(now);
        let now = self.now;
        match self.phase {
            Phase::Ask { .. } => {
                let start = *self.started.get_or_insert(now);
                if let Some(i) = self.awaiting {
                    self.qa[i].at.get_or_insert(now);
                }
                let deadline = start + u64::from(self.setup.seconds);
                // A guess made in time is judged even if the judgment comes late.
                let in_time = self
                    .pending_line()
                    .is_some_and(|q| matches!(q.said, Said::Guess { .. }) && q.at < Some(deadline));
                if now >= deadline && !in_time {
                    self.time_up();
                }
            }
            Phase::Talk { .. } => {
                if let Some(q) = self.qa.last_mut() {
                    q.at.get_or_insert(now);
                }
                if self.talk_until.is_none() {
                    // The timer flipped: the talk lasts as long as the guessing did.
                    let guessed = self
                        .qa
                        .iter()
                        .rev()
                        .find(|q| {
                            matches!(
                                q.said,
                                Said::Guess {
                                    right: Some(true),
                                    ..
                                }
                            )
                        })
                        .and_then(|q| q.at);
                    if let (Some(start), Some(at)) = (self.started, guessed) {
                        self.talk_until = Some(now + at.saturating_sub(start));
                    }
                }
                if self.talk_until.is_some_and(|t| now >= t) {
                    self.phase = Phase::Vote1;
                }
            }
            _ => {}
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Done {
            return None;
        }
        let players = self.players();
        if let Some(End::Removed { seats }) = &self.end {
            return Some(crate::engine::forfeit_outcome(&players, seats));
        }
        if self.misjudged {
            // A Master who judged a guess against the word voids the game and pays.
            let m = self.master.expect("a Master");
            return Some(crate::engine::forfeit_outcome(&players, &[m]));
        }
        let winners = self.winners();
        let n = players.len() as i64;
        let insider_won = winners.len() == 1 && Some(winners[0]) == self.insider();
        Some(Outcome {
            payoffs: players
                .iter()
                .map(|s| {
                    let p = if winners.is_empty() {
                        -1
                    } else if insider_won {
                        if winners.contains(s) {
                            n - 1
                        } else {
                            -1
                        }
                    } else if winners.contains(s) {
                        1
                    } else {
                        -(n - 1)
                    };
                    (*s, p)
                })
                .collect(),
            winners,
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let insiders = self.roles.values().filter(|r| **r == Role::Insider).count();
        if insiders > 1 {
            return Err("two Insiders".into());
        }
        if self.phase == Phase::Done && self.end.is_none() {
            return Err("over without an end".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        self.voters()
    }

    fn participants(&self) -> Vec<Seat> {
        match self.phase {
            Phase::Done => Vec::new(),
            // The role deck is keyed, shuffled and dealt by everyone but the Master: it holds
            // no share of it (PROTOCOL.md §5.11).
            Phase::Roles => self.askers_ascending(),
            _ => self.voters(),
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], _reason: ForfeitReason) -> Result<(), RuleError> {
        check_forfeit(self.phase == Phase::Done, &self.voters(), offenders)?;
        // Nothing can be settled without every seat: the game ends, void, and the offenders pay.
        self.removed.extend(offenders);
        self.removed.sort_unstable();
        self.removed.dedup();
        self.pending.clear();
        self.awaiting = None;
        self.log.push(Entry::Removed {
            seats: offenders.to_vec(),
        });
        self.end = Some(End::Removed {
            seats: offenders.to_vec(),
        });
        self.phase = Phase::Done;
        Ok(())
    }
}

impl Insider {
    /// The lot drew the Master (who sees the word's dice); the role cards are shuffled and
    /// dealt to the others next.
    fn drew_lot(&mut self, outcomes: &[ChanceOutcome]) {
        let n = self.setup.players;
        let mut master = None;
        for out in outcomes {
            if let ChanceOutcome::Rolled { values } = out {
                master = Some((values[0] - 1) % n);
            }
        }
        let m = master.expect("the lot");
        self.master = Some(m);
        self.roles.insert(m, Role::Master);
        for out in outcomes {
            if let ChanceOutcome::RolledPrivate {
                owner,
                values: Some(v),
            } = out
            {
                if *owner == m {
                    self.dice = Some(v.clone());
                }
            }
        }
        self.log.push(Entry::Master { seat: m });
        self.phase = Phase::Roles;
        let mut reqs = vec![ChanceRequest::Shuffle {
            deck: ROLE_DECK,
            spec: role_spec(n),
        }];
        for (i, s) in self.askers_ascending().into_iter().enumerate() {
            self.role_pos.insert(s, i as u16);
            reqs.push(ChanceRequest::deal(ROLE_DECK, i as u16, s));
        }
        self.pending = reqs;
    }

    /// The word is shown to all: the Master's judgments of the guesses are checked against it.
    fn word_opened(&mut self, outcomes: &[ChanceOutcome]) {
        for out in outcomes {
            if let ChanceOutcome::WhisperOpened { values, .. } = out {
                self.dice = Some(values.clone());
            }
        }
        let word = self.word().unwrap_or_default().to_string();
        self.log.push(Entry::WordShown { word: word.clone() });
        // The Master's judgments, checked against the word now everyone sees.
        let master = self.master.expect("a Master");
        for q in self.qa.clone() {
            if let Said::Guess {
                word: g,
                right: Some(r),
            } = &q.said
            {
                if (normal(g) == word) != *r {
                    self.misjudged = true;
                    self.log.push(Entry::Misjudged {
                        seat: master,
                        word: g.clone(),
                        said: *r,
                    });
                }
            }
        }
        self.shown_word = Some(word);
        self.phase = Phase::Done;
    }
    fn askers_ascending(&self) -> Vec<Seat> {
        let mut a = self.askers();
        a.sort_unstable();
        a
    }

    fn after_talk(&mut self, turn: u32, quiet: u32) {
        let n = u32::from(self.setup.players);
        // Everyone passed in a row, or three rounds went by: to the votes.
        if quiet >= n || turn + 1 >= 3 * n {
            self.phase = Phase::Vote1;
        } else {
            self.phase = Phase::Talk {
                turn: turn + 1,
                quiet,
            };
        }
    }
}

/// The role deck of `players`: the Insider card, then a Common card for each other non-Master.
pub fn role_spec(players: u8) -> DeckSpec {
    let mut names = vec!["Insider".to_string()];
    names.extend((2..players).map(|_| "Common".to_string()));
    DeckSpec::Custom { names }
}
