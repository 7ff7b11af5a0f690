//! Bounded head+tail output buffer with absolute byte offsets.
//!
//! The first `head_cap` bytes a session ever printed are kept, and the most recent
//! `tail_cap` bytes; whatever fell between them is counted and rendered as
//! `[… N bytes dropped …]`. Offsets are absolute (byte N of everything the process
//! printed), so a read cursor or an `offset` stays meaningful after drops.

use std::collections::VecDeque;

/// Default total capacity per session: 1 MiB (¼ head, ¾ tail).
pub const DEFAULT_CAPACITY: usize = 1 << 20;

/// One piece of a read: bytes that were kept, or a count of bytes that were dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Bytes(Vec<u8>),
    Dropped(u64),
}

#[derive(Debug)]
pub struct OutputBuffer {
    head: Vec<u8>,
    head_cap: usize,
    tail: VecDeque<u8>,
    tail_cap: usize,
    total: u64,
}

impl OutputBuffer {
    /// A buffer keeping at most `capacity` bytes: a quarter for the head, the rest for the
    /// tail (at least one byte each).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(2);
        let head_cap = (capacity / 4).max(1);
        let tail_cap = capacity - head_cap;
        OutputBuffer {
            head: Vec::new(),
            head_cap,
            tail: VecDeque::new(),
            tail_cap,
            total: 0,
        }
    }

    /// Everything ever pushed, in bytes (the offset one past the last byte).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes currently held (never more than the capacity).
    pub fn retained(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// The capacity given at construction (head + tail).
    pub fn capacity(&self) -> usize {
        self.head_cap + self.tail_cap
    }

    /// Bytes dropped between head and tail so far.
    pub fn dropped(&self) -> u64 {
        self.tail_start() - self.head.len() as u64
    }

    fn tail_start(&self) -> u64 {
        self.total - self.tail.len() as u64
    }

    pub fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            grow_within(&mut self.head, n, self.head_cap);
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.reserve_exact(self.tail_cap);
            self.tail.extend(&data[data.len() - self.tail_cap..]);
            return;
        }
        let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
        if overflow > 0 {
            self.tail.drain(..overflow);
        }
        let needed = self.tail.len() + data.len();
        if needed > self.tail.capacity() {
            // Grow by doubling, but never past the cap: memory stays what the cap says.
            let target = needed.next_power_of_two().min(self.tail_cap);
            self.tail.reserve_exact(target - self.tail.len());
        }
        self.tail.extend(data);
    }

    /// The bytes in `[from, to)` (clamped to what was printed), with dropped stretches as
    /// [`Segment::Dropped`].
    pub fn read(&self, from: u64, to: u64) -> Vec<Segment> {
        let to = to.min(self.total);
        let mut out = Vec::new();
        let mut pos = from;
        if pos >= to {
            return out;
        }
        let head_len = self.head.len() as u64;
        if pos < head_len {
            let end = to.min(head_len);
            out.push(Segment::Bytes(
                self.head[pos as usize..end as usize].to_vec(),
            ));
            pos = end;
        }
        let tail_start = self.tail_start();
        if pos < to && pos < tail_start {
            let end = to.min(tail_start);
            out.push(Segment::Dropped(end - pos));
            pos = end;
        }
        if pos < to {
            let a = (pos - tail_start) as usize;
            let b = (to - tail_start) as usize;
            let mut bytes = Vec::with_capacity(b - a);
            let (s1, s2) = self.tail.as_slices();
            if a < s1.len() {
                bytes.extend_from_slice(&s1[a..b.min(s1.len())]);
            }
            if b > s1.len() {
                bytes.extend_from_slice(&s2[a.saturating_sub(s1.len())..b - s1.len()]);
            }
            out.push(Segment::Bytes(bytes));
        }
        out
    }
}

/// Reserves room for `extra` more bytes, doubling but never beyond `cap`.
fn grow_within(v: &mut Vec<u8>, extra: usize, cap: usize) {
    let needed = v.len() + extra;
    if needed > v.capacity() {
        let target = needed.next_power_of_two().min(cap).max(needed);
        v.reserve_exact(target - v.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(segs: &[Segment]) -> String {
        let mut s = String::new();
        for seg in segs {
            match seg {
                Segment::Bytes(b) => s.push_str(&String::from_utf8_lossy(b)),
                Segment::Dropped(n) => s.push_str(&format!("[{n}]")),
            }
        }
        s
    }

    #[test]
    fn keeps_head_and_tail_with_absolute_offsets() {
        let mut b = OutputBuffer::new(8); // head 2, tail 6
        b.push(b"abcdefghij");
        b.push(b"klmnop");
        assert_eq!(b.total(), 16);
        assert_eq!(b.retained(), 8);
        assert_eq!(b.dropped(), 8);
        assert_eq!(flat(&b.read(0, 16)), "ab[8]klmnop");
        assert_eq!(flat(&b.read(5, 12)), "[5]kl");
        assert_eq!(flat(&b.read(12, 100)), "mnop");
        assert_eq!(flat(&b.read(16, 100)), "");
    }

    #[test]
    fn small_pushes_wrap_the_ring() {
        let mut b = OutputBuffer::new(8);
        for c in b'a'..=b'z' {
            b.push(&[c]);
        }
        assert_eq!(flat(&b.read(0, 26)), "ab[18]uvwxyz");
        assert_eq!(flat(&b.read(23, 25)), "xy");
        assert!(b.retained() <= b.capacity());
    }

    #[test]
    fn allocation_stays_within_the_cap() {
        let mut b = OutputBuffer::new(DEFAULT_CAPACITY);
        for _ in 0..1000 {
            b.push(&[b'x'; 4000]);
        }
        assert_eq!(b.retained(), DEFAULT_CAPACITY);
        assert!(b.head.capacity() + b.tail.capacity() <= DEFAULT_CAPACITY + 64);
    }

    #[test]
    fn nothing_dropped_under_capacity() {
        let mut b = OutputBuffer::new(1024);
        b.push(b"hello ");
        b.push(b"world");
        assert_eq!(b.dropped(), 0);
        assert_eq!(flat(&b.read(0, 11)), "hello world");
    }
}
