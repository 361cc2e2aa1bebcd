//! The stored settings could not be read: what is wrong, and the person's three ways on.

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::messages::{Recovery, SettingsProblem};
use yew::prelude::*;

use crate::state::Pending;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub problem: SettingsProblem,
    pub recovery: Pending<()>,
    pub on_recover: Callback<Recovery>,
}

#[function_component]
pub fn SettingsProblemBanner(props: &Props) -> Html {
    let busy = props.recovery.is_running();
    let button = |action: Recovery, key: &str, class: &'static str, testid: &'static str| {
        html! {
            <button type="button" class={class} data-testid={testid} disabled={busy}
                onclick={props.on_recover.reform(move |_: MouseEvent| action)}>
                { message(key, &[]) }</button>
        }
    };
    let outcome = match &props.recovery {
        Pending::Running => html! {
            <p class="note"><span class="spinner" aria-hidden="true"></span>
                { message("popupRecovering", &[]) }</p>
        },
        Pending::Done(()) => {
            html! { <p class="note ok">{ message("popupRecoveryExported", &[]) }</p> }
        }
        Pending::Failed(error) => html! {
            <p class="note error" role="alert">{ message("popupRecoveryFailed", &[error]) }</p>
        },
        Pending::Idle => html! {},
    };
    html! {
        <div class="banner error" role="alert" data-testid="settings-problem">
            <p>{ message("popupSettingsProblem", &[&word(&props.problem.error)]) }</p>
            <p class="note">{ message("popupSettingsProblemChoose", &[]) }</p>
            <div class="actions">
                { button(Recovery::ExportKept, "popupRecoverExport", "secondary", "recover-export") }
                { button(Recovery::Restore, "popupRecoverRestore", "secondary", "recover-restore") }
                { button(Recovery::StartFresh, "popupRecoverStartFresh", "danger", "recover-start-fresh") }
            </div>
            <div aria-live="polite">{ outcome }</div>
        </div>
    }
}
