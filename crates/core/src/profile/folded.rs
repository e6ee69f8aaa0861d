//! The folded-stack format of flamegraph.pl, inferno and speedscope: one
//! `root;…;leaf weight` line per distinct stack, frames as the report shows
//! them (kernel runs folded into `[kernel]`).

use super::labels::{LabelId, Labeler};
use crate::hashing::FastIndexMap;
use crate::report::{Profiles, SampleKind};
use std::io::{self, Write};

/// Writes the stacks of `kind`, heaviest first in the order they were merged;
/// stacks that read the same once folded are one line.
pub fn write_folded<W: Write + ?Sized>(out: &mut W, profiles: &Profiles, kind: SampleKind) -> io::Result<()> {
    let mut labeler = Labeler::default();
    let mut lines: FastIndexMap<Vec<LabelId>, u64> = FastIndexMap::default();
    for w in profiles.stacks(kind) {
        if w.weight == 0 {
            continue;
        }
        let path = labeler.path(&profiles.frames, &w.stack);
        *lines.entry(path.labels).or_default() += w.weight;
    }
    let mut line = String::new();
    for (labels, weight) in lines {
        line.clear();
        for (i, &id) in labels.iter().enumerate() {
            if i > 0 {
                line.push(';');
            }
            push_frame(&mut line, &labeler.get(id).text);
        }
        if labels.is_empty() {
            line.push_str("(no frames)");
        }
        writeln!(out, "{line} {weight}")?;
    }
    Ok(())
}

/// A frame's text with what would break the format replaced: `;` separates
/// frames and a line ends the stack, so neither may appear inside one.
fn push_frame(line: &mut String, text: &str) {
    line.extend(text.chars().map(|c| match c {
        ';' => ':',
        c if c.is_control() => ' ',
        c => c,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Frame, Weighted};
    use std::sync::Arc;

    #[test]
    fn one_line_per_folded_stack() {
        let f = |s: &str| Frame {
            symbol: Arc::from(s),
            location: None,
        };
        let profiles = Profiles {
            frames: vec![
                f("main"),
                f("evil;\nname"),
                f("0xffff8000812a2118"),
                f("0xffff8000812a0000"),
            ],
            on_cpu: vec![
                Weighted {
                    weight: 3,
                    stack: vec![2, 1, 0],
                },
                Weighted {
                    weight: 2,
                    stack: vec![3, 1, 0],
                },
                Weighted {
                    weight: 1,
                    stack: vec![0],
                },
            ],
            ..Profiles::default()
        };
        let mut out = Vec::new();
        write_folded(&mut out, &profiles, SampleKind::OnCpu).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "main;evil: name;[kernel] 5\nmain 1\n");
    }
}
