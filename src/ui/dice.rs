//! The line interface for the private-dice games (Perudo, Mia): the same loop for both, each game
//! supplying how its view, log and moves read as text. It reads only the person's seat view.

use crate::bots::dice::{MiaBot, PerudoBot};
use crate::bots::Bot;
use crate::engine::sim::{fulfil_all, Oracle};
use crate::engine::{Game, Seat, ToAct};
use crate::games::{mia, perudo};
use std::io::{BufRead, Write};

/// How one dice game reads as text.
pub trait TextGame: Game {
    fn log(view: &Self::View) -> &[Self::LogLine];
    type LogLine;
    fn line(entry: &Self::LogLine, names: &dyn Fn(Seat) -> String) -> String;
    /// The table as the viewer sees it, ending with a newline.
    fn render(view: &Self::View, names: &dyn Fn(Seat) -> String) -> String;
    fn help() -> &'static str;
    fn parse(input: &str) -> Result<Self::Action, String>;
}

/// "NAME verbs", or "you verb" for the reader's own seat (named "you").
fn says(name: String, verb: &str) -> String {
    if name != "you" {
        return format!("{name} {verb}");
    }
    let base = match verb {
        "is" => "are",
        "passes" => "pass",
        "wins" => "win",
        v => v.strip_suffix('s').unwrap_or(v),
    };
    format!("you {base}")
}

/// "NAME's", or "your" for the reader's own seat.
fn whose(name: String) -> String {
    if name == "you" {
        "your".into()
    } else {
        format!("{name}'s")
    }
}

fn dice_text(d: &[u8]) -> String {
    d.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl TextGame for perudo::Perudo {
    type LogLine = perudo::LogEntry;
    fn log(view: &perudo::PerudoView) -> &[perudo::LogEntry] {
        &view.log
    }
    fn line(e: &perudo::LogEntry, n: &dyn Fn(Seat) -> String) -> String {
        use perudo::LogEntry as E;
        match e {
            E::Toss { first } => format!("the toss: {}", says(n(*first), "opens")),
            E::Round {
                round,
                opener,
                putana,
            } => format!(
                "round {round}{}: {} opens",
                if *putana {
                    " (PUTANA: ones not wild, face fixed)"
                } else {
                    ""
                },
                n(*opener)
            ),
            E::Bid { seat, bid } => format!("{} {bid}", says(n(*seat), "bids")),
            E::Dudo { seat, against } => format!("{}: dudo! (against {})", n(*seat), n(*against)),
            E::Shown { seat, dice } => format!("{} {}", says(n(*seat), "shows"), dice_text(dice)),
            E::Counted { bid, count, loser } => {
                format!(
                    "{count} counted for {bid}: {} a die",
                    says(n(*loser), "loses")
                )
            }
            E::Out { seat } => format!("{} out", says(n(*seat), "is")),
            E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
        }
    }
    fn render(v: &perudo::PerudoView, n: &dyn Fn(Seat) -> String) -> String {
        let cups: Vec<String> = v
            .players
            .iter()
            .map(|p| format!("{} {}", n(p.seat), p.dice_left))
            .collect();
        let mut s = format!(
            "dice: {} ({} on the table)\n",
            cups.join(", "),
            v.total_dice
        );
        if let Some(d) = v.me().and_then(|p| p.dice.as_ref()) {
            s += &format!("your cup: {}\n", dice_text(d));
        }
        match (v.bid, v.bidder) {
            (Some(b), Some(by)) => s += &format!("standing bid: {b} by {}\n", n(by)),
            _ => s += "no bid yet\n",
        }
        s
    }
    fn help() -> &'static str {
        "'bid QUANTITY FACE' (e.g. 'bid 4 3') or 'dudo'"
    }
    fn parse(input: &str) -> Result<perudo::Action, String> {
        perudo::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), Self::help()))
    }
}

impl TextGame for mia::Mia {
    type LogLine = mia::LogEntry;
    fn log(view: &mia::MiaView) -> &[mia::LogEntry] {
        &view.log
    }
    fn line(e: &mia::LogEntry, n: &dyn Fn(Seat) -> String) -> String {
        use mia::LogEntry as E;
        match e {
            E::Toss { first } => format!("the toss: {}", says(n(*first), "opens")),
            E::Round { round, opener } => format!("round {round}: {}", says(n(*opener), "opens")),
            E::Rolled { seat } => format!(
                "{} the cup and {}",
                says(n(*seat), "rolls"),
                if n(*seat) == "you" { "look" } else { "looks" }
            ),
            E::Claimed { seat, claim } => format!("{} {claim}", says(n(*seat), "claims")),
            E::Passed { seat, claim } => format!("{} {claim} on unseen", says(n(*seat), "passes")),
            E::Raised { seat, claim } => {
                format!("{} the claim to {claim}", says(n(*seat), "raises"))
            }
            E::Rerolled { seat } => says(n(*seat), "rerolls"),
            E::Challenged { seat, owner } => {
                format!("{} {}", says(n(*seat), "challenges"), n(*owner))
            }
            E::Opened {
                roller,
                dice,
                value,
                claim,
            } => format!(
                "{} cup shows {} = {value} (claimed {claim})",
                whose(n(*roller)),
                dice_text(dice)
            ),
            E::LostLives { seat, lives } => format!(
                "{} {lives} {}",
                says(n(*seat), "loses"),
                if *lives == 1 { "life" } else { "lives" }
            ),
            E::Out { seat } => format!("{} out", says(n(*seat), "is")),
            E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
        }
    }
    fn render(v: &mia::MiaView, n: &dyn Fn(Seat) -> String) -> String {
        let lives: Vec<String> = v
            .lives
            .iter()
            .map(|(s, l)| format!("{} {l}", n(*s)))
            .collect();
        let mut s = format!("lives: {} ({:?} ranking)\n", lives.join(", "), v.ranking);
        if let Some(c) = &v.cup {
            if let Some(d) = c.dice {
                s += &format!(
                    "the cup you rolled: {} = {}\n",
                    dice_text(&d),
                    mia::Throw::of_dice(d[0], d[1])
                );
            }
            if let Some(claim) = c.claim {
                s += &format!("claim: {claim}, owned by {}\n", n(c.owner));
            }
        }
        s
    }
    fn help() -> &'static str {
        "'claim NN', 'challenge', 'pass', 'reroll' or 'raise NN' (values like 43, 21 = Mia)"
    }
    fn parse(input: &str) -> Result<mia::Action, String> {
        mia::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), Self::help()))
    }
}

/// One local game: seat 0 is the person (or a bot with `auto`), the rest are bots.
pub fn play_local<G: TextGame>(
    mut game: G,
    mut bots: Vec<Box<dyn Bot<G>>>,
    oracle: &mut Oracle<impl rand::Rng>,
    auto: bool,
) -> Result<(), String> {
    let seats = super::local_names(game.seats().len() as u8);
    let names = |s: Seat| super::seat_name(&seats, s);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut shown = 0;
    loop {
        let view = game.view(Some(0));
        for e in &G::log(&view)[shown..] {
            println!("  · {}", G::line(e, &names));
        }
        shown = G::log(&view).len();
        match game.to_act() {
            ToAct::Terminal => break,
            ToAct::Chance(reqs) => {
                let outs = fulfil_all(oracle, &reqs)?;
                game.apply_chance(&outs).map_err(|e| e.to_string())?;
            }
            ToAct::Seat(s) => {
                let legal = game.legal_actions(s);
                let action = if s == 0 && !auto {
                    print!("{}", G::render(&view, &names));
                    loop {
                        print!("your move ({}): ", G::help());
                        std::io::stdout().flush().ok();
                        let Some(Ok(input)) = lines.next() else {
                            println!("\nbye");
                            return Ok(());
                        };
                        match G::parse(&input) {
                            Ok(a) => match game.clone().apply(0, &a) {
                                Ok(()) => break a,
                                Err(e) => println!("  {e}"),
                            },
                            Err(e) => println!("  {e}"),
                        }
                    }
                } else {
                    bots[s as usize].choose(&game.view(Some(s)), &legal)
                };
                game.apply(s, &action).map_err(|e| e.to_string())?;
            }
            ToAct::Sealed(_) => return Err("dice games have no simultaneous moves".into()),
        }
    }
    print!("{}", G::render(&game.view(Some(0)), &names));
    let winner = game
        .outcome()
        .and_then(|o| o.winners.first().copied())
        .ok_or("the game ended without a winner")?;
    println!("{} won the game", names(winner));
    Ok(())
}

/// `tolerance play --game perudo|mia --local`: the terminal table on a terminal, else (or with
/// `plain`) the line interface.
pub fn play_local_cli(
    game: &str,
    players: u8,
    variant: &str,
    auto: bool,
    plain: bool,
) -> Result<(), String> {
    use rand::rngs::{OsRng, StdRng};
    use rand::SeedableRng;
    let mut rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
    let mut oracle = Oracle::new(StdRng::from_rng(&mut rng).map_err(|e| e.to_string())?);
    let mut seeded = || StdRng::from_rng(&mut rng).expect("seeding from a seeded RNG");
    let table = crate::table::dice_seat::setup(game, Some(variant), players)?;
    println!(
        "LOCAL {game} game: you and {} bots on this machine, rolled by this machine's RNG.",
        players.saturating_sub(1)
    );
    let screen = !auto && crate::table::seat::SeatUi::choose(false, plain).is_table();
    let names = super::local_names(players);
    let ended = match table {
        crate::table::dice_seat::DiceTable::Perudo(g) => {
            let bots = (0..players)
                .map(|_| Box::new(PerudoBot::new(seeded())) as Box<dyn Bot<perudo::Perudo>>)
                .collect();
            if screen {
                crate::ui::tui::dice::play_local(g, bots, &mut oracle, names)?
            } else {
                return play_local(g, bots, &mut oracle, auto);
            }
        }
        crate::table::dice_seat::DiceTable::Mia(g) => {
            let bots = (0..players)
                .map(|_| Box::new(MiaBot::new(seeded())) as Box<dyn Bot<mia::Mia>>)
                .collect();
            if screen {
                crate::ui::tui::dice::play_local(g, bots, &mut oracle, names)?
            } else {
                return play_local(g, bots, &mut oracle, auto);
            }
        }
    };
    println!("{}", ended.unwrap_or_else(|| "you left the game".into()));
    Ok(())
}

/// A person's seat in a networked dice game, as a [`Bot`] the session asks for moves: it shows
/// what happened since the last question and reads a move from standard input. Input is read on
/// the session's thread; the session has nothing else to do while it waits for this seat.
pub struct LinePlayer<G: TextGame> {
    names: Box<dyn Fn(Seat) -> String + Send>,
    shown: usize,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: TextGame> LinePlayer<G> {
    pub fn new(names: Box<dyn Fn(Seat) -> String + Send>) -> Self {
        LinePlayer {
            names,
            shown: 0,
            _game: std::marker::PhantomData,
        }
    }
}

impl<G: TextGame> Bot<G> for LinePlayer<G>
where
    G::Action: PartialEq,
{
    fn choose(&mut self, view: &G::View, legal: &[G::Action]) -> G::Action {
        let names = |s: Seat| (self.names)(s);
        let log = G::log(view);
        for e in &log[self.shown.min(log.len())..] {
            println!("  · {}", G::line(e, &names));
        }
        self.shown = log.len();
        print!("{}", G::render(view, &names));
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        loop {
            print!("your move ({}): ", G::help());
            std::io::stdout().flush().ok();
            let Some(Ok(input)) = lines.next() else {
                // The person left; the others settle the seat by its deadline.
                println!("\nbye");
                std::process::exit(0);
            };
            match G::parse(&input) {
                Ok(a) if legal.contains(&a) => return a,
                Ok(_) => println!("  that move is not legal now"),
                Err(e) => println!("  {e}"),
            }
        }
    }

    fn name(&self) -> &str {
        "person"
    }
}
