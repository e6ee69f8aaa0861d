//! The d9lens page.

fn main() {
    d9lens_web::start();
}
