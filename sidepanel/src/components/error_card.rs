use gemipanel_browser::chrome::message;
use yew::prelude::*;

use crate::state::{ErrorKind, ErrorView};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub error: ErrorView,
}

/// An error in the transcript: what happened (the API's words) and what to do about it.
#[function_component]
pub fn ErrorCard(props: &Props) -> Html {
    let error = &props.error;
    let (title, hint) = match error.kind {
        ErrorKind::MissingKey => ("panelErrorMissingKey", Some("panelHintMissingKey")),
        ErrorKind::Auth => ("panelErrorAuth", Some("panelHintAuth")),
        ErrorKind::RateLimited => ("panelErrorRateLimited", Some("panelHintRateLimited")),
        ErrorKind::DailyQuota => ("panelErrorDailyQuota", Some("panelHintDailyQuota")),
        ErrorKind::Blocked => ("panelErrorBlocked", Some("panelHintBlocked")),
        ErrorKind::Server => ("panelErrorServer", Some("panelHintRetry")),
        ErrorKind::Network => ("panelErrorNetwork", Some("panelHintRetry")),
        ErrorKind::Other => ("panelErrorOther", None),
    };
    let settings_link = matches!(error.kind, ErrorKind::MissingKey | ErrorKind::Auth).then(|| {
        html! {
            <a class="button" href="popup.html" target="_blank" rel="noopener"
                data-testid="open-settings">{ message("panelOpenSettings", &[]) }</a>
        }
    });
    html! {
        <div class="error-card" role="alert" data-testid="error" data-kind={title}>
            <strong>{ message(title, &[]) }</strong>
            if error.kind != ErrorKind::MissingKey {
                <p class="detail">{ error.message.clone() }</p>
            }
            if let Some(hint) = hint {
                <p class="hint">{ message(hint, &[]) }</p>
            }
            { for settings_link }
        </div>
    }
}
