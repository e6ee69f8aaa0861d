//! A bucket CORS rule, answered by the server itself as S3 does (`--cors-origin`):
//! AllowedMethods GET/HEAD/PUT/POST, AllowedHeaders "*", the headers the page reads
//! exposed, MaxAgeSeconds 3600. The same rule `tests/s3/front.mjs` answers for;
//! without the front in between, a page's downloads cost no JavaScript proxy (the
//! fleet benchmark measures the page, not a proxy).

use http::header::{HeaderMap, HeaderValue};
use http::{Method, Response, StatusCode};

const ALLOW_METHODS: [&str; 4] = ["GET", "HEAD", "PUT", "POST"];
const EXPOSE_HEADERS: &str = "ETag, Content-Length, Content-Range, Date, x-amz-request-id, x-amz-bucket-region";
const VARY: &str = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method";

/// Which origins the rule allows: `*`, or a list.
#[derive(Debug, Clone, Default)]
pub struct CorsRule {
    origins: Vec<String>,
}

/// What the rule makes of a request.
pub enum Verdict<B> {
    /// Not a preflight: pass it on, then add these headers to its answer.
    Pass(HeaderMap),
    /// A preflight, answered here.
    Answer(Response<B>),
}

impl CorsRule {
    pub fn new(origins: Vec<String>) -> Self {
        Self { origins }
    }

    fn allows(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == "*" || o == origin)
    }

    /// The rule applied to a request's method and headers; `empty` makes a body.
    pub fn check<B>(&self, method: &Method, headers: &HeaderMap, empty: impl FnOnce() -> B) -> Verdict<B> {
        let allowed = headers
            .get(http::header::ORIGIN)
            .filter(|o| o.to_str().is_ok_and(|o| self.allows(o)));
        if method != Method::OPTIONS || self.origins.is_empty() {
            return Verdict::Pass(allowed.map(|o| rule_headers(o.clone())).unwrap_or_default());
        }
        let asked = headers
            .get("access-control-request-method")
            .and_then(|m| m.to_str().ok())
            .filter(|m| ALLOW_METHODS.contains(m));
        let mut answer = Response::new(empty());
        let (Some(origin), Some(_)) = (allowed, asked) else {
            // S3's answer to a preflight no rule allows.
            *answer.status_mut() = StatusCode::FORBIDDEN;
            return Verdict::Answer(answer);
        };
        let h = answer.headers_mut();
        h.extend(rule_headers(origin.clone()));
        let methods = HeaderValue::from_str(&ALLOW_METHODS.join(", ")).expect("method names are header text");
        h.insert("access-control-allow-methods", methods);
        h.insert("access-control-max-age", HeaderValue::from_static("3600"));
        // AllowedHeaders "*": S3 echoes whatever the browser asks for.
        if let Some(asked) = headers.get("access-control-request-headers") {
            h.insert("access-control-allow-headers", asked.clone());
        }
        Verdict::Answer(answer)
    }
}

/// What every answer to an allowed origin carries, preflight or not.
fn rule_headers(origin: HeaderValue) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("access-control-allow-origin", origin);
    h.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(EXPOSE_HEADERS),
    );
    h.insert("vary", HeaderValue::from_static(VARY));
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, pairs: &[(&'static str, &'static str)]) -> (Method, HeaderMap) {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        (method, h)
    }

    fn answer(rule: &CorsRule, method: Method, pairs: &[(&'static str, &'static str)]) -> Response<()> {
        let (m, h) = request(method, pairs);
        match rule.check(&m, &h, || ()) {
            Verdict::Answer(r) => r,
            Verdict::Pass(_) => panic!("expected an answer"),
        }
    }

    fn passed(rule: &CorsRule, method: Method, pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let (m, h) = request(method, pairs);
        match rule.check(&m, &h, || ()) {
            Verdict::Pass(add) => add,
            Verdict::Answer(_) => panic!("expected a pass"),
        }
    }

    #[test]
    fn preflight_of_an_allowed_origin_echoes_it_and_the_asked_headers() {
        let rule = CorsRule::new(vec!["http://a.test".into()]);
        let r = answer(
            &rule,
            Method::OPTIONS,
            &[
                ("origin", "http://a.test"),
                ("access-control-request-method", "GET"),
                ("access-control-request-headers", "authorization,x-amz-date"),
            ],
        );
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["access-control-allow-origin"], "http://a.test");
        assert_eq!(r.headers()["access-control-allow-headers"], "authorization,x-amz-date");
        assert_eq!(r.headers()["access-control-max-age"], "3600");
    }

    #[test]
    fn preflight_of_another_origin_or_method_is_refused() {
        let rule = CorsRule::new(vec!["http://a.test".into()]);
        let other = [("origin", "http://b.test"), ("access-control-request-method", "GET")];
        assert_eq!(answer(&rule, Method::OPTIONS, &other).status(), StatusCode::FORBIDDEN);
        let delete = [("origin", "http://a.test"), ("access-control-request-method", "DELETE")];
        assert_eq!(answer(&rule, Method::OPTIONS, &delete).status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn answers_carry_the_rule_only_for_allowed_origins() {
        let any = CorsRule::new(vec!["*".into()]);
        let add = passed(&any, Method::GET, &[("origin", "http://z.test")]);
        assert_eq!(add["access-control-allow-origin"], "http://z.test");
        assert!(add["access-control-expose-headers"].to_str().unwrap().contains("ETag"));
        assert!(passed(&any, Method::GET, &[]).is_empty());
        let none = CorsRule::default();
        assert!(passed(&none, Method::GET, &[("origin", "http://z.test")]).is_empty());
        // Without a rule a preflight goes to s3s, which refuses it like S3 without CORS.
        assert!(passed(&none, Method::OPTIONS, &[("origin", "http://z.test")]).is_empty());
    }
}
