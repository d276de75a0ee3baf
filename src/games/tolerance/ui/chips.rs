//! Where a finished hand's chips went, in words a card room would use. A pot's share holds the
//! winner's own bets, and the part of a bet nobody called is not won at all: it comes back
//! (rules §Side pots make it a pot of its own that only its owner can take). So "you win 180"
//! for a hand that gained 45 is read as the gain and is wrong; these lines say what came back,
//! what each pot was and what each seat gained or lost, from the hand's public summary and the
//! stacks its seats started with.

use crate::engine::Seat;
use crate::games::tolerance::game::HandSummary;
use crate::games::tolerance::hand::{Action, LogEntry};
use crate::games::ui::words::{list, says, whose};

/// One seat's chips in a finished hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatChips {
    pub seat: Seat,
    /// What the seat put in the pot, its uncalled part included.
    pub put_in: u64,
    /// The part of its bet nobody called, given back to it.
    pub uncalled: u64,
    /// Final stack less starting stack.
    pub net: i64,
}

fn stack_of(list: &[(Seat, u64)], s: Seat) -> u64 {
    list.iter().find(|(x, _)| *x == s).map_or(0, |(_, c)| *c)
}

fn folded(h: &HandSummary, s: Seat) -> bool {
    h.log
        .iter()
        .any(|e| matches!(e, LogEntry::Act { seat, action: Action::Fold } if *seat == s))
}

/// Each player's chips in hand `h`, whose seats started it with `start`, in seat order.
pub fn hand_chips(h: &HandSummary, start: &[(Seat, u64)]) -> Vec<SeatChips> {
    let won = |s: Seat| -> u64 {
        h.result.as_ref().map_or(0, |r| {
            r.pots
                .iter()
                .flat_map(|p| p.shares.iter())
                .filter(|(x, _)| *x == s)
                .map(|(_, a)| *a)
                .sum()
        })
    };
    let mut out: Vec<SeatChips> = h
        .players
        .iter()
        .map(|&s| {
            let (from, to) = (stack_of(start, s), stack_of(&h.final_stacks, s));
            SeatChips {
                seat: s,
                // Settled by pots, a stack is what was left behind plus what came back from
                // them; by forfeit there are no pots and nothing here reads `put_in`.
                put_in: from.saturating_sub(to.saturating_sub(won(s))),
                uncalled: 0,
                net: to as i64 - from as i64,
            }
        })
        .collect();
    let settled_by_pots = h.result.as_ref().is_some_and(|r| !r.pots.is_empty());
    if settled_by_pots {
        // Only the one who put in the most can have bet what nobody matched, and only while it
        // is still in the hand (a folder's chips stay in the pot).
        let top = out.iter().map(|c| c.put_in).max().unwrap_or(0);
        let leaders: Vec<usize> = (0..out.len()).filter(|&i| out[i].put_in == top).collect();
        if let [i] = leaders[..] {
            let next = out
                .iter()
                .filter(|c| c.seat != out[i].seat)
                .map(|c| c.put_in)
                .max()
                .unwrap_or(0);
            if !folded(h, out[i].seat) {
                out[i].uncalled = top - next;
            }
        }
    }
    out
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// The hand's end in words: the cards shown, what came back, who took each pot or the forfeited
/// chips, and each seat's gain or loss.
pub fn hand_lines(
    h: &HandSummary,
    start: &[(Seat, u64)],
    names: &dyn Fn(Seat) -> String,
) -> Vec<String> {
    let chips = hand_chips(h, start);
    let mut out = Vec::new();
    if !h.dealt() {
        let who: Vec<String> = h.forfeits.iter().map(|(s, _)| names(*s)).collect();
        out.push(format!(
            "hand {} was never dealt: {} forfeited before the deal, and no chips moved",
            h.hand + 1,
            list(&who)
        ));
        return out;
    }
    if !h.shown.is_empty() {
        let opened: Vec<String> = h
            .shown
            .iter()
            .map(|(s, cs)| format!("{} {}", names(*s), super::words::cards_text(cs)))
            .collect();
        out.push(format!("shown: {}", opened.join("; ")));
    }
    match &h.result {
        Some(r) if !r.pots.is_empty() => {
            let mut back: Vec<(Seat, u64)> = Vec::new();
            for c in chips.iter().filter(|c| c.uncalled > 0) {
                back.push((c.seat, c.uncalled));
                out.push(format!(
                    "{} uncalled {} comes back",
                    whose(names(c.seat)),
                    c.uncalled
                ));
            }
            // Pots without what came back: the top pot holds an uncalled bet, whether as a pot
            // of its own (a showdown) or as part of the only pot (everyone else folded).
            let mut pots: Vec<(u64, Vec<(Seat, u64)>)> = r
                .pots
                .iter()
                .map(|p| (p.amount, p.shares.clone()))
                .collect();
            for (s, mut u) in back {
                for (amount, shares) in pots.iter_mut().rev() {
                    if let Some(share) = shares.iter_mut().find(|(x, _)| *x == s) {
                        let k = u.min(share.1);
                        share.1 -= k;
                        *amount -= k;
                        u -= k;
                    }
                }
            }
            pots.retain(|(amount, _)| *amount > 0);
            for (i, (amount, shares)) in pots.iter().enumerate() {
                let which = match (pots.len(), i) {
                    (1, _) => "the pot".to_string(),
                    (_, 0) => "the main pot".to_string(),
                    _ => format!("side pot {i}"),
                };
                let winners: Vec<&(Seat, u64)> = shares.iter().filter(|(_, a)| *a > 0).collect();
                if let [(s, _)] = winners[..] {
                    let how = if r.uncontested {
                        " (everyone else folded)"
                    } else {
                        ""
                    };
                    out.push(format!(
                        "{} {which} of {amount}{how}",
                        says(names(*s), "wins")
                    ));
                } else {
                    let parts: Vec<String> = winners
                        .iter()
                        .map(|(s, a)| format!("{} {a}", names(*s)))
                        .collect();
                    out.push(format!(
                        "{which} of {amount} is split: {}",
                        parts.join(", ")
                    ));
                }
            }
        }
        _ => {
            for (s, why) in &h.forfeits {
                out.push(format!(
                    "{} forfeited the hand: {}",
                    names(*s),
                    crate::games::ui::words::gone(names(*s), *why)
                ));
            }
            // A card can be opened only with every key share of its deck, the offender's too
            // (PROTOCOL §Forfeit): a forfeited hand has no showdown.
            out.push("no cards were shown: the hand ended without a showdown".into());
            let takers: Vec<String> = chips
                .iter()
                .filter(|c| c.net > 0)
                .map(|c| format!("{} {}", names(c.seat), c.net))
                .collect();
            out.push(if takers.is_empty() {
                "every bet went back to its owner".to_string()
            } else {
                format!(
                    "every other bet went back; the forfeited chips went to {}",
                    takers.join(", ")
                )
            });
        }
    }
    let nets: Vec<String> = chips
        .iter()
        .map(|c| format!("{} {}", names(c.seat), signed(c.net)))
        .collect();
    out.push(format!("this hand: {}", nets.join(", ")));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::CardId;
    use crate::engine::sim::{play_out, Oracle};
    use crate::engine::{ForfeitReason, Game};
    use crate::games::tolerance::hand::{HandResult, PotResult};
    use crate::games::tolerance::{Tolerance, Variant};
    use rand::{rngs::StdRng, SeedableRng};

    fn names(s: Seat) -> String {
        ["you", "Ben", "Cy"][s as usize].to_string()
    }

    fn summary(
        log: Vec<LogEntry>,
        pots: Vec<PotResult>,
        uncontested: bool,
        finals: Vec<(Seat, u64)>,
    ) -> HandSummary {
        HandSummary {
            hand: 4,
            dealer: 1,
            players: vec![0, 1],
            result: Some(HandResult {
                uncontested,
                points: Vec::new(),
                pots,
                final_stacks: finals.clone(),
                forfeited: Vec::new(),
            }),
            forfeits: Vec::new(),
            final_stacks: finals,
            shown: Vec::new(),
            log,
        }
    }

    /// Ben posts 45, you raise to 180, Ben folds: the pot of 225 holds your own 180, of which
    /// 135 nobody called. You gain 45, not 180.
    #[test]
    fn an_uncalled_raise_comes_back_and_the_gain_is_what_the_others_put_in() {
        let h = summary(
            vec![
                LogEntry::Blind {
                    seat: 1,
                    amount: 45,
                },
                LogEntry::Act {
                    seat: 0,
                    action: Action::Raise { to: 180 },
                },
                LogEntry::Act {
                    seat: 1,
                    action: Action::Fold,
                },
                LogEntry::Won {
                    seat: 0,
                    amount: 225,
                },
            ],
            vec![PotResult {
                amount: 225,
                eligible: vec![0],
                winners: vec![0],
                shares: vec![(0, 225)],
            }],
            true,
            vec![(0, 1045), (1, 955)],
        );
        let start = [(0, 1000), (1, 1000)];
        let c = hand_chips(&h, &start);
        assert_eq!((c[0].put_in, c[0].uncalled, c[0].net), (180, 135, 45));
        assert_eq!((c[1].put_in, c[1].uncalled, c[1].net), (45, 0, -45));
        let lines = hand_lines(&h, &start, &names);
        assert_eq!(
            lines,
            [
                "your uncalled 135 comes back",
                "you win the pot of 90 (everyone else folded)",
                "this hand: you +45, Ben -45",
            ]
        );
    }

    /// At a showdown the unmatched part of an all-in is a pot only its owner may take: it is
    /// named as coming back, not as a side pot won.
    #[test]
    fn at_a_showdown_the_pot_only_its_owner_could_take_is_told_as_coming_back() {
        let h = summary(
            vec![LogEntry::Blind {
                seat: 1,
                amount: 10,
            }],
            vec![
                PotResult {
                    amount: 120,
                    eligible: vec![0, 1],
                    winners: vec![1],
                    shares: vec![(1, 120)],
                },
                PotResult {
                    amount: 40,
                    eligible: vec![0],
                    winners: vec![0],
                    shares: vec![(0, 40)],
                },
            ],
            false,
            vec![(0, 940), (1, 120)],
        );
        let h = HandSummary {
            shown: vec![
                (0, vec![CardId(3), CardId(4)]),
                (1, vec![CardId(0), CardId(13)]),
            ],
            ..h
        };
        let lines = hand_lines(&h, &[(0, 1000), (1, 60)], &names);
        assert_eq!(
            lines,
            [
                format!(
                    "shown: you {}; Ben {}",
                    super::super::words::cards_text(&[CardId(3), CardId(4)]),
                    super::super::words::cards_text(&[CardId(0), CardId(13)])
                ),
                "your uncalled 40 comes back".into(),
                "Ben wins the pot of 120".into(),
                "this hand: you -60, Ben +60".into(),
            ]
        );
    }

    /// Plays `t` until the hand in play has had `moves` moves.
    fn into_hand(t: &mut Tolerance, moves: usize, raise: bool) {
        let mut oracle = Oracle::new(StdRng::seed_from_u64(9));
        let mut made = 0;
        while made < moves {
            match t.to_act() {
                crate::engine::ToAct::Chance(reqs) => {
                    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
                    t.apply_chance(&outs).unwrap();
                }
                crate::engine::ToAct::Seat(s) => {
                    let legal = t.legal_actions(s);
                    let a = legal
                        .iter()
                        .copied()
                        .filter(|a| raise || !matches!(a, Action::Raise { .. }))
                        .find(|a| !matches!(a, Action::Fold))
                        .unwrap();
                    t.apply(s, &a).unwrap();
                    made += 1;
                }
                other => panic!("unexpected turn {other:?}"),
            }
        }
    }

    /// Ben is removed in the middle of a hand: nobody was shown a card, every other bet came
    /// back and Ben's chips in the pot went to the others, and the words say so with the sums.
    #[test]
    fn a_forfeited_hand_says_no_cards_were_shown_and_who_took_the_chips() {
        let mut t = Tolerance::new(Variant::default(), 3, None).unwrap();
        into_hand(&mut t, 3, true);
        t.forfeit(&[1], ForfeitReason::Withheld).unwrap();
        let h = t.history.last().unwrap();
        let chips = hand_chips(h, &t.start_stacks(h.hand));
        let ben = chips.iter().find(|c| c.seat == 1).unwrap().net;
        assert!(ben < 0, "Ben had chips in the pot: {chips:?}");
        let lines = hand_lines(h, &t.start_stacks(h.hand), &names);
        assert!(
            lines[0].starts_with("Ben forfeited the hand: "),
            "{lines:?}"
        );
        assert_eq!(
            lines[1],
            "no cards were shown: the hand ended without a showdown"
        );
        assert!(
            lines[2].starts_with("every other bet went back; the forfeited chips went to "),
            "{lines:?}"
        );
        let last = lines.last().unwrap();
        assert!(last.contains(&format!("Ben {ben}")), "{last}");
        assert_eq!(chips.iter().map(|c| c.net).sum::<i64>(), 0);
    }

    /// A seat removed while the table's deck was being shuffled: no hand was dealt and no chip
    /// moved, and the words do not speak of a hand played.
    #[test]
    fn a_forfeit_before_the_deal_is_told_as_a_hand_never_dealt() {
        let mut t = Tolerance::new(Variant::default(), 3, None).unwrap();
        t.forfeit(&[2], ForfeitReason::Absent).unwrap();
        assert_eq!((t.table.hands_played, t.hands_dealt()), (1, 0));
        let h = &t.history[0];
        assert_eq!(
            hand_lines(h, &t.start_stacks(h.hand), &names),
            ["hand 1 was never dealt: Cy forfeited before the deal, and no chips moved"]
        );
    }

    /// A whole random table: every hand's gains add up to nothing, what came back is never more
    /// than what was put in, and a hand's words never call a pot's share a gain.
    #[test]
    fn across_a_table_gains_sum_to_nothing_and_match_the_stacks() {
        let mut t = Tolerance::new(Variant::default(), 3, Some(12)).unwrap();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(5));
        let mut rng = StdRng::seed_from_u64(6);
        play_out(&mut t, &mut oracle, 100_000, |_, _, legal| {
            use rand::seq::SliceRandom;
            *legal.choose(&mut rng).unwrap()
        })
        .unwrap();
        assert!(!t.history.is_empty());
        for h in &t.history {
            let start = t.start_stacks(h.hand);
            let chips = hand_chips(h, &start);
            assert_eq!(
                chips.iter().map(|c| c.net).sum::<i64>(),
                0,
                "hand {}",
                h.hand
            );
            for c in &chips {
                assert!(c.uncalled <= c.put_in);
                let from = stack_of(&start, c.seat) as i64;
                assert_eq!(from + c.net, stack_of(&h.final_stacks, c.seat) as i64);
            }
        }
        assert!(t.is_terminal());
    }
}
