//! `gemipanel-demo --app <bundled app.html> [--port N]`: prints the server's URL on its first
//! line of output, then serves until stopped.

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut app, mut port) = (None, 0u16);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--app", Some(path)) => app = Some(path),
            ("--port", Some(value)) => match value.parse() {
                Ok(value) => port = value,
                Err(_) => return fail(&format!("--port {value}: not a port number")),
            },
            _ => return fail(&format!("unexpected argument {arg}")),
        }
    }
    let Some(app) = app else {
        return fail("--app <file> is required (build it with: node demo/app/build.mjs <file>)");
    };
    let html = match std::fs::read_to_string(&app) {
        Ok(html) => html,
        Err(err) => return fail(&format!("reading {app}: {err}")),
    };
    let (listener, address) = match gemipanel_demo::bind(port).await {
        Ok(bound) => bound,
        Err(err) => return fail(&format!("listening on 127.0.0.1:{port}: {err}")),
    };
    println!("gemipanel-demo: listening on http://{address}/mcp");
    match gemipanel_demo::serve(listener, html).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&format!("serving: {err}")),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("gemipanel-demo: {message}");
    ExitCode::FAILURE
}
