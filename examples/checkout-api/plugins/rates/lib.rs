//! The checkout-api example's currency-rates upstream, a mock plugin in
//! Rust: `GET /v1/rates?from=EUR&to=USD` is answered from the binding's
//! config, the same way in every run, so every submission converts with
//! the same rates, offline.
//!
//! Config:
//!
//!   base   the currency the rates are quoted from (required), e.g. EUR
//!   rates  currency → rate, a JSON number kept as written (its digits are
//!          sent back unchanged, so a client reading them as a decimal
//!          gets them exactly), e.g. {USD: 1.0825}
//!
//! Answers: 200 `{"from": "EUR", "to": "USD", "rate": 1.0825}`; the rate of
//! the base to itself is 1; 400 when from or to is missing; 404 for a pair
//! the config does not quote; 405 for another method, 404 for another
//! path. The mock keeps no state: a rate does not change within a run.
//!
//! Build: `task plugins` (or cargo, see Cargo.toml).

use wasmeval::*;

fn info() -> Describe {
    let mut d = Describe::new("checkout-rates", "1.0.0", &["mock"]);
    d.config_schema = parse_str(
        r#"{"type":"object","required":["base","rates"],"additionalProperties":false,
            "properties":{"base":{"type":"string","minLength":1},
                          "rates":{"type":"object","additionalProperties":{"type":"number","exclusiveMinimum":0}}}}"#,
    )
    .unwrap_or_default();
    d.description = "Currency rates from its config, for the checkout-api example.".into();
    d
}

describe!(info());
mock!(answer);

fn answer(input: MockInput) -> Result<MockOutput, String> {
    let base = match input.config.get("base") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        // A binding without a base is the problem's mistake: the mock
        // cannot answer, and the case is an error, not a fail.
        _ => return Ok(MockOutput { error: "config.base: expected a currency code such as \"EUR\"".into(), ..Default::default() }),
    };
    let r = &input.request;
    if r.path != "/v1/rates" {
        return reply(404, object(vec![("error", format!("no such endpoint {}", r.path).into())]));
    }
    if r.method != "GET" {
        return reply(405, object(vec![("error", format!("{} is not allowed on /v1/rates; use GET", r.method).into())]));
    }
    let (from, to) = match (param(r, "from"), param(r, "to")) {
        (Some(f), Some(t)) => (f, t),
        _ => return reply(400, object(vec![("error", "query parameters from and to are required".into())])),
    };
    let rate = if from == base && to == base {
        Some(Value::int(1))
    } else if from == base {
        match input.config.get("rates") {
            Some(Value::Object(rates)) => match rates.get(&to) {
                Some(v @ Value::Number(_)) => Some(v.clone()),
                _ => None,
            },
            _ => None,
        }
    } else {
        None
    };
    match rate {
        Some(rate) => reply(200, object(vec![("from", from.into()), ("to", to.into()), ("rate", rate)])),
        None => reply(404, object(vec![("error", format!("no rate from {} to {}", from, to).into())])),
    }
}

/// The first value of a query parameter, when it is given and not empty.
fn param(r: &MockRequest, name: &str) -> Option<String> {
    r.query.get(name).and_then(|v| v.first()).filter(|s| !s.is_empty()).cloned()
}

fn reply(status: i64, body: Value) -> Result<MockOutput, String> {
    Ok(MockOutput { response: json_response(status, &body)?, ..Default::default() })
}
