//! reformation's ui part.

use crate::engine::{Game, Seat};
use crate::games::reformation::data::faith_word;
use crate::games::reformation::effects::ChoiceKind;
use crate::games::reformation::game::{Action, Phase, ReformView, Reformation};
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::{count, says, whose};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{card, card_options, line, move_words, name, names_of, parse, role_name, seats};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

/// The reign's header, for its words and its drawing alike.
fn heading(v: &ReformView) -> String {
    format!(
        "reign {} of {}: {} · prevailing religion {} · trick {} of 12",
        v.round.max(1),
        v.rounds,
        name(v.data(), v.monarch),
        faith_word(v.prevailing),
        (v.tricks + 1).min(12)
    )
}

impl GameUi for Reformation {
    fn story(&self, _viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        // Everything in the record was shown to the whole table when it happened (every card
        // played is shown face up); the story is the table's account as it went.
        let data = self.data();
        self.log.iter().map(|e| line(e, names, data)).collect()
    }

    fn render(v: &ReformView, n: &dyn Fn(Seat) -> String) -> String {
        let data = v.data();
        let mut s = format!("── {} ──\n", heading(v));
        for p in &v.players {
            let arrow = if v.to_act.contains(&p.seat) {
                "▶"
            } else {
                " "
            };
            let _ = write!(
                s,
                "{arrow} {:<10} money {:>2}  piety C{:>2} P{:>2}  pennants {}/{}/{}  loans {}  VP {}  hand {:>2}",
                n(p.seat),
                p.money,
                p.catholic,
                p.protestant,
                p.pennants[0],
                p.pennants[1],
                p.pennants[2],
                p.loans,
                p.vp.map_or("?".into(), |v| v.to_string()),
                p.hand
            );
            if let Some(r) = p.role {
                let _ = write!(s, "  {}", role_name(data, r));
            }
            s.push('\n');
            let mut piles = Vec::new();
            for pl in &p.piles {
                if pl.count == 0 {
                    continue;
                }
                let label = format!(
                    "{} {}",
                    if pl.dead { "dead" } else { "living" },
                    match pl.faith {
                        Some(f) => f.word(),
                        None => "no religion",
                    }
                );
                let cards = if pl.cards.is_empty() {
                    format!(
                        "{} on top of {}",
                        pl.top.map(|t| name(data, t.card)).unwrap_or_default(),
                        count(pl.count as u64, "card", "cards")
                    )
                } else {
                    names_of(
                        data,
                        &pl.cards.iter().rev().map(|c| c.card).collect::<Vec<_>>(),
                    )
                };
                piles.push(format!("{label}: {cards}"));
            }
            if !piles.is_empty() {
                let _ = writeln!(s, "    {}", piles.join(" · "));
            }
        }
        if !v.trick.is_empty() {
            let plays: Vec<String> = v
                .trick
                .iter()
                .map(|c| {
                    let mut t = format!(
                        "{} {}",
                        n(c.seat),
                        c.card.map(|x| card(data, x)).unwrap_or_else(|| "??".into())
                    );
                    if let Some(d) = c.declared {
                        let _ = write!(t, " as {}", d.word());
                    }
                    if !c.alive {
                        t.push_str(" (dead)");
                    }
                    t
                })
                .collect();
            let _ = writeln!(s, "  trick: {}", plays.join(" · "));
        }
        if v.viewer.is_some() && !v.hand.is_empty() {
            let hand: Vec<String> = v
                .hand
                .iter()
                .map(|(_, c)| c.map(|c| card(data, c)).unwrap_or_else(|| "??".into()))
                .collect();
            let _ = writeln!(s, "  your hand: {}", hand.join(", "));
        }
        s
    }

    fn drawing(v: &ReformView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let data = v.data();
        let named = |c: Option<crate::cards::CardId>| {
            c.map_or(Piece::CardBack, |c| Piece::named(card(data, c)))
        };
        let mut d = Drawing::new(heading(v));
        for p in &v.players {
            // Only the viewer's own hand is in its view; the others' are as many backs.
            let hand: Vec<Piece> = if v.viewer == Some(p.seat) {
                v.hand.iter().map(|(_, c)| named(*c)).collect()
            } else {
                vec![Piece::CardBack; p.hand]
            };
            let out = v.removed.contains(&p.seat);
            d = d.spot(
                Spot::seat(p.seat, v.viewer, n)
                    .pieces(hand)
                    .note(format!("money {}", p.money))
                    .note(format!(
                        "piety Catholic {}, Protestant {}",
                        p.catholic, p.protestant
                    ))
                    .note(format!(
                        "pennants money {}, Catholic {}, Protestant {}",
                        p.pennants[0], p.pennants[1], p.pennants[2]
                    ))
                    .note(format!("loans {}", p.loans))
                    .note(p.vp.map_or("VP not known".into(), |vp| format!("VP {vp}")))
                    .note(count(p.hand as u64, "card in hand", "cards in hand"))
                    .note_if(
                        p.role.is_some(),
                        p.role.map(|r| role_name(data, r)).unwrap_or_default(),
                    )
                    .note_if(out, "removed")
                    .turn(v.to_act.contains(&p.seat))
                    .out(out),
            );
            for pl in p.piles.iter().filter(|pl| pl.count > 0) {
                let label = format!(
                    "{} {} {} pile",
                    whose(n(p.seat)),
                    if pl.dead { "dead" } else { "living" },
                    match pl.faith {
                        Some(f) => f.word(),
                        None => "no religion",
                    }
                );
                // The top card lies face up for everyone; the ones under it only for their
                // owner (and everyone once the piles are shown).
                let pieces: Vec<Piece> = if pl.cards.is_empty() {
                    pl.top
                        .map(|t| Piece::named(card(data, t.card)))
                        .into_iter()
                        .chain(vec![Piece::CardBack; pl.count.saturating_sub(1)])
                        .collect()
                } else {
                    pl.cards
                        .iter()
                        .rev()
                        .map(|c| Piece::named(card(data, c.card)))
                        .collect()
                };
                d = d.spot(
                    Spot::new(label)
                        .pieces(pieces)
                        .note(match pl.count {
                            1 => "1 card".to_string(),
                            k => format!("{k} cards, the top first"),
                        })
                        .own(v.viewer == Some(p.seat)),
                );
            }
        }
        if !v.trick.is_empty() {
            let mut trick = Spot::new("trick").pieces(v.trick.iter().map(|c| named(c.card)));
            for c in &v.trick {
                let mut t = format!(
                    "{}: {}",
                    n(c.seat),
                    c.card
                        .map_or("a card not shown yet".into(), |x| card(data, x))
                );
                if let Some(s) = c.declared {
                    let _ = write!(t, " as {}", s.word());
                }
                if !c.alive {
                    t.push_str(", dead");
                }
                trick = trick.note(t);
            }
            d = d.spot(trick);
        }
        Some(d)
    }

    fn prompt(view: &ReformView, legal: &[Action]) -> String {
        let data = view.data();
        match view.phase {
            Phase::Play => {
                let led = view
                    .led
                    .map(|l| format!(" ({} led)", l.word()))
                    .unwrap_or_default();
                let _ = legal;
                format!("play a card{led}, as Valiant Knight or N8; a Wild card 'as Clergy' > ")
            }
            Phase::Effects => {
                let what = match view.choice.as_ref().map(|c| c.kind) {
                    Some(ChoiceKind::Piety) => "whose piety to collect",
                    _ => "which card to kill",
                };
                let opts: Vec<(Action, String)> = card_options(view, legal);
                format!(
                    "{} chooses {what}: {} > ",
                    view.choice
                        .as_ref()
                        .map(|c| name(data, c.card))
                        .unwrap_or_default(),
                    opts.iter()
                        .enumerate()
                        .map(|(i, (_, s))| format!("{} {s}", i + 1))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Phase::Execute => format!(
                "Royal Execution: which card? {} > ",
                card_options(view, legal)
                    .iter()
                    .enumerate()
                    .map(|(i, (_, s))| format!("{} {s}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Phase::Start => "who leads the first trick (a seat number, or 'me')? > ".into(),
            Phase::Repay => "repay how many Loans (5 money each; 0 for none)? > ".into(),
            Phase::Roles | Phase::Agendas => {
                let names: Vec<String> = if view.phase == Phase::Roles {
                    view.free_roles
                        .iter()
                        .map(|r| data.roles[usize::from(*r)].name.clone())
                        .collect()
                } else {
                    view.agenda
                        .iter()
                        .filter_map(|(_, r)| r.map(|r| data.roles[usize::from(r)].name.clone()))
                        .collect()
                };
                format!("choose your Role ({}) > ", names.join(", "))
            }
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &ReformView, legal: &[Action]) -> Result<Action, String> {
        parse(input, view, legal)
    }

    fn move_text(view: &ReformView, action: &Action) -> String {
        move_words(view, action)
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Reformation>> {
        Box::<crate::games::reformation::ui::panel::ReformPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        if !self.removed.is_empty() {
            return format!(
                "the game ends without a winner: the table removed {}",
                seats(&self.removed, names)
            );
        }
        let vps: Vec<String> = self
            .players
            .iter()
            .map(|(s, p)| format!("{} {} VP", names(*s), p.vp))
            .collect();
        let won = match self.winners.as_slice() {
            [one] => format!("{} Tolerance: Reformation", says(names(*one), "wins")),
            many => format!("{} share the win", seats(many, names)),
        };
        format!(
            "{won} after {} ({})",
            count(self.records.len() as u64, "reign", "reigns"),
            vps.join(", ")
        )
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::reformation::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
