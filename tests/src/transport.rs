//! The native host of `core::mcp`: HTTP through reqwest, time through tokio.

use gemipanel_core::mcp::{
    HttpRequest, HttpResponse, HttpTransport, Method, ResponseBody, Timer, TransportError,
};
use std::time::Duration;

#[derive(Clone)]
pub struct NativeHost {
    http: reqwest::Client,
}

impl Default for NativeHost {
    fn default() -> Self {
        // No idle connections: tests restart servers on the same port, and a pooled socket to the
        // dead process would fail the next POST (browsers retry those by themselves).
        // Redirects are the client's to judge (it refuses them), as with the browser's fetch.
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        NativeHost { http }
    }
}

pub struct NativeBody(reqwest::Response);

impl ResponseBody for NativeBody {
    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        match self.0.chunk().await {
            Ok(chunk) => Ok(chunk.map(|b| b.to_vec())),
            Err(e) => Err(TransportError::io(with_causes(&e))),
        }
    }
}

impl HttpTransport for NativeHost {
    type Body = NativeBody;

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<NativeBody>, TransportError> {
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = self.http.request(method, &request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let response = builder.send().await.map_err(|e| {
            if e.is_connect() {
                TransportError::connect(with_causes(&e))
            } else {
                TransportError::io(with_causes(&e))
            }
        })?;
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        Ok(HttpResponse { status: response.status().as_u16(), headers, body: NativeBody(response) })
    }
}

/// reqwest's own message ("error sending request") hides what went wrong underneath.
fn with_causes(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

impl Timer for NativeHost {
    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> {
        tokio::time::sleep(duration)
    }
}
