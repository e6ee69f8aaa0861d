//! Two pieces of one analysis at once. Natively the second runs on a scoped
//! thread (a single big file then uses both cores); the wasm build has no
//! threads and runs them one after the other (the page parallelizes across
//! files instead). Both give the same result: the pieces share nothing
//! mutable. Fuzzing takes the wasm path: a thread per input would cost more
//! than the analysis of most inputs.

pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(any(target_arch = "wasm32", fuzzing)))]
    {
        std::thread::scope(|s| {
            let b = s.spawn(b);
            let a = a();
            (a, b.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }
    #[cfg(any(target_arch = "wasm32", fuzzing))]
    {
        (a(), b())
    }
}
