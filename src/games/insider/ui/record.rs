//! insider: the words of its record and table.

use crate::engine::Seat;
use crate::games::insider::game::Entry;
use crate::games::ui::words::says;

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Master { seat } => format!("by lot, {} the Master", says(n(*seat), "is")),
        Entry::Picked => "the Master picks the word".into(),
        Entry::WordGiven => "the word goes to the Insider (nobody else learns who that is)".into(),
        Entry::TimerStarts { seconds } => format!(
            "the timer starts: {}:{:02} to guess the word",
            seconds / 60,
            seconds % 60
        ),
        Entry::Asked { seat, text } => format!("{}: {text}", says(n(*seat), "asks")),
        Entry::Answered { answer } => format!("the Master: {}", answer.word()),
        Entry::Guessed { seat, word } => format!("{} \"{word}\"", says(n(*seat), "guesses")),
        Entry::Judged { right } => format!(
            "the Master: {}",
            if *right {
                "that is the word! The timer flips"
            } else {
                "no"
            }
        ),
        Entry::Passed { seat } => format!("{} no question", says(n(*seat), "has")),
        Entry::TimeUp => "time is up before anyone guessed the word: everyone loses".into(),
        Entry::Said { seat, text } => format!("{}: {text}", says(n(*seat), "says")),
        Entry::Votes1 { yes, no } => format!(
            "first vote, is the guesser the Insider? yes: {}; no: {}",
            list(yes, n),
            list(no, n)
        ),
        Entry::Votes2 { points } => format!(
            "second vote: {}",
            points
                .iter()
                .map(|(s, p)| match p {
                    Some(p) => format!("{} → {}", n(*s), n(*p)),
                    None => format!("{} → nobody", n(*s)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Entry::Tie { seats } => format!("a tie between {}: the Master decides", list(seats, n)),
        Entry::Broke { seat } => format!("the Master picks {}", n(*seat)),
        Entry::Accused { seat } => format!("{} accused of being the Insider", says(n(*seat), "is")),
        Entry::RolesShown { insider } => match insider {
            Some(i) => format!(
                "the role cards are shown: {} the Insider",
                says(n(*i), "is")
            ),
            None => "the role cards are shown".into(),
        },
        Entry::WordShown { word } => format!("the word was \"{word}\""),
        Entry::Misjudged { seat, word, said } => format!(
            "{} \"{word}\" {} — the table checked it against the word: the game is void",
            says(n(*seat), "called"),
            if *said { "right" } else { "wrong" }
        ),
        Entry::Removed { seats } => format!(
            "{} removed from the table: the game is void",
            list(seats, n)
        ),
    }
}

pub fn list(seats: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    if seats.is_empty() {
        return "nobody".into();
    }
    seats.iter().map(|s| n(*s)).collect::<Vec<_>>().join(", ")
}

pub fn clock(secs: u64) -> String {
    format!("{}:{:02}", secs / 60, secs % 60)
}
