//! Two pieces of one analysis at once. Natively the second runs on a scoped
//! thread (a single big file then uses both cores); the wasm build has no
//! threads and runs them one after the other (the page parallelizes across
//! files instead). Both give the same result: the pieces share nothing
//! mutable.

pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|s| {
            let b = s.spawn(b);
            let a = a();
            (a, b.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        (a(), b())
    }
}
