//! New buffer and resource ids, unique in the document and the same for the same input
//! ([`IdSource`]).

use std::collections::HashSet;

use serde_json::Value;

use crate::stf::raw::StfContainer;

/// New ids, unique in the document: UUID-shaped (version 8, "custom"), from a counter
/// hashed with the document's size, so the same input gives the same ids.
pub(crate) struct IdSource {
    taken: HashSet<String>,
    state: u64,
}

impl IdSource {
    pub(crate) fn new(doc: &Value, c: &StfContainer) -> Self {
        let mut taken = HashSet::new();
        collect_ids(doc, &mut taken);
        // The time of writing is not content: two conversions of one input a second
        // apart must give the same ids.
        let timeless = doc.pointer("/stf/timestamp").and_then(|_| {
            let mut d = doc.clone();
            d.get_mut("stf")?.as_object_mut()?.remove("timestamp");
            serde_json::to_vec(&d).ok()
        });
        let json = timeless.as_deref().unwrap_or(&c.json);
        let seed = fnv(json) ^ (c.buffers.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        IdSource { taken, state: seed }
    }

    /// From a seed (a hash of what the document is made from).
    pub(crate) fn seeded(seed: u64) -> Self {
        IdSource {
            taken: HashSet::new(),
            state: seed,
        }
    }

    pub(crate) fn next(&mut self) -> String {
        loop {
            let a = splitmix(&mut self.state);
            let b = splitmix(&mut self.state);
            let a = (a & !0xf000) | 0x8000; // version 8
            let b = (b & !(0b11 << 62)) | (0b10 << 62); // RFC 4122 variant
            let id = format!(
                "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xffff,
                b >> 48,
                b & 0xffff_ffff_ffff
            );
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }
}

fn collect_ids(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ids(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.insert(k.clone());
                collect_ids(x, out);
            }
        }
        _ => {}
    }
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
