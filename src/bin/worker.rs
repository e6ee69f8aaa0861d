//! The analysis worker (a Web Worker; trunk builds it with `data-type="worker"`).

fn main() {
    d9lens_web::worker::run();
}
