//! Per-thread spares: a buffer a statement grew, kept on its thread for the next
//! statement, so that a statement run again finds it grown and allocates nothing
//! (exec invariant (3); `key_set`'s table and key bytes).
//!
//! A user borrows the spare for as long as it works ([`lend`]). A use nested inside it (a
//! subquery's, a trigger's) finds the spare taken and starts from an empty value: never a
//! conflict, at worst an allocation. The value goes home when its [`Loan`] is dropped,
//! whichever way the user ends (an error included), if the user's `keep` says it is worth
//! keeping; `keep` also readies it for the next user (clears what must not be seen again).

use std::cell::Cell;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// A spare taken from its thread-local home, given back on drop.
pub struct Loan<T: Default + 'static> {
    value: T,
    home: &'static LocalKey<Cell<T>>,
    keep: fn(&mut T) -> bool,
}

/// Takes `home`'s spare (an empty `T` if a user up the stack has it). On drop the value
/// goes back if `keep` returns true; `keep` may clear it first.
pub fn lend<T: Default>(home: &'static LocalKey<Cell<T>>, keep: fn(&mut T) -> bool) -> Loan<T> {
    Loan {
        value: home.take(),
        home,
        keep,
    }
}

impl<T: Default> Deref for Loan<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Default> DerefMut for Loan<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: Default> Drop for Loan<T> {
    fn drop(&mut self) {
        if (self.keep)(&mut self.value) {
            let value = std::mem::take(&mut self.value);
            // A loan dropped while its thread is exiting has no home left: let it go.
            let _ = self.home.try_with(|home| home.set(value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lend;
    use std::cell::Cell;

    thread_local! {
        static HOME: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }

    fn keep_small(v: &mut Vec<u8>) -> bool {
        v.clear();
        v.capacity() <= 64
    }

    #[test]
    fn a_kept_spare_comes_back_cleared_and_a_nested_loan_starts_empty() {
        let mut outer = lend(&HOME, keep_small);
        outer.extend_from_slice(b"outer");
        let grown = outer.as_ptr();
        {
            let nested = lend(&HOME, keep_small);
            assert!(
                nested.is_empty() && nested.capacity() == 0,
                "the spare is taken"
            );
        }
        drop(outer);
        let next = lend(&HOME, keep_small);
        assert!(next.is_empty(), "keep cleared it");
        assert_eq!(
            next.as_ptr(),
            grown,
            "the outer loan's allocation came home"
        );
    }

    #[test]
    fn a_spare_keep_refuses_is_dropped() {
        let mut big = lend(&HOME, keep_small);
        big.resize(1000, 0);
        drop(big);
        assert_eq!(lend(&HOME, keep_small).capacity(), 0);
    }
}
