//! The module's memory allocator on wasm32: small blocks (up to 2 KiB)
//! come from free lists, one per power-of-two size class, refilled from
//! 64 KiB slabs; larger ones from the standard library's allocator.
//!
//! A plugin call allocates a block for every string, number, array and
//! object of the documents it reads and writes — hundreds for a verdict on
//! a small JSON output — and frees them all again. Taking a block off a
//! free list and putting it back are a few instructions with no loop,
//! where dlmalloc spends a hundred or more, partly in helpers it calls.
//! A small block freed stays in its size class for the next allocation of
//! that class (the slabs are never given back): a plugin's memory is its
//! high-water mark per class, which for calls that allocate and free
//! alike is what they use at once.
//!
//! A plugin that wants its own allocator builds the SDK with
//! `--cfg wasmeval_system_alloc` and declares its #[global_allocator].

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;

/// Size classes: 16, 32, …, 2048 bytes.
const CLASSES: usize = 8;
const MIN_SHIFT: u32 = 4;
const MAX_SMALL: usize = 16 << (CLASSES - 1);
/// Small blocks are carved from slabs of this size.
const SLAB: usize = 64 << 10;

pub(crate) struct Pool {
    state: UnsafeCell<State>,
}

struct State {
    /// The first free block of each class; each free block holds the next.
    free: [*mut u8; CLASSES],
    /// The unused rest of the current slab.
    next: *mut u8,
    end: *mut u8,
}

// The module is single-threaded: wasm32 without the atomics feature has
// no threads.
unsafe impl Sync for Pool {}

impl Pool {
    pub(crate) const fn new() -> Pool {
        Pool {
            state: UnsafeCell::new(State {
                free: [core::ptr::null_mut(); CLASSES],
                next: core::ptr::null_mut(),
                end: core::ptr::null_mut(),
            }),
        }
    }
}

/// The class of a small block of size bytes (at least 1).
#[inline]
fn class(size: usize) -> usize {
    if size <= 16 {
        0
    } else {
        // ceil(log2(size)) - MIN_SHIFT
        (usize::BITS - (size - 1).leading_zeros() - MIN_SHIFT) as usize
    }
}

#[inline]
fn small(layout: &Layout) -> bool {
    layout.size() <= MAX_SMALL && layout.align() <= 16
}

impl State {
    #[inline]
    unsafe fn alloc(&mut self, c: usize) -> *mut u8 {
        let head = self.free[c];
        if !head.is_null() {
            self.free[c] = *(head as *mut *mut u8);
            return head;
        }
        let size = 16usize << c;
        if (self.end as usize) - (self.next as usize) < size {
            self.refill();
            if self.next.is_null() {
                return core::ptr::null_mut();
            }
        }
        let p = self.next;
        self.next = p.add(size);
        p
    }

    #[cold]
    #[inline(never)]
    unsafe fn refill(&mut self) {
        // What is left of the old slab (less than a block of the class
        // asked for) goes to the free lists of the classes it fits.
        let mut c = CLASSES;
        while c > 0 {
            c -= 1;
            let size = 16usize << c;
            if (self.end as usize) - (self.next as usize) >= size {
                self.dealloc(self.next, c);
                self.next = self.next.add(size);
            }
        }
        let slab = System.alloc(Layout::from_size_align_unchecked(SLAB, 16));
        self.next = slab;
        self.end = if slab.is_null() { slab } else { slab.add(SLAB) };
    }

    #[inline]
    unsafe fn dealloc(&mut self, p: *mut u8, c: usize) {
        *(p as *mut *mut u8) = self.free[c];
        self.free[c] = p;
    }
}

unsafe impl GlobalAlloc for Pool {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if small(&layout) {
            return (*self.state.get()).alloc(class(layout.size()));
        }
        System.alloc(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if small(&layout) {
            return (*self.state.get()).dealloc(p, class(layout.size()));
        }
        System.dealloc(p, layout)
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (small(&layout), small(&new)) {
            (false, false) => System.realloc(p, layout, new_size),
            (true, true) if class(layout.size()) == class(new_size) => p,
            _ => {
                let q = self.alloc(new);
                if !q.is_null() {
                    core::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                    self.dealloc(p, layout);
                }
                q
            }
        }
    }
}
