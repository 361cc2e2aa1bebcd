//! Files for the next message: picked with the paper clip, pasted, or dropped on the composer.

use wasm_bindgen::JsCast;
use web_sys::{ClipboardEvent, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::Props;
use crate::files::from_list;

/// The handlers the composer's elements take, and whether files are being dragged over it.
pub(super) struct FileInputs {
    pub picker: NodeRef,
    pub dropping: bool,
    pub on_attach_click: Callback<MouseEvent>,
    pub on_picked: Callback<Event>,
    pub onpaste: Callback<Event>,
    pub ondragover: Callback<DragEvent>,
    pub ondragleave: Callback<DragEvent>,
    pub ondrop: Callback<DragEvent>,
    pub on_remove_file: Callback<u32>,
}

#[hook]
pub(super) fn use_file_inputs(props: &Props, input: &NodeRef) -> FileInputs {
    let picker = use_node_ref();
    let dropping = use_state(|| false);
    let on_attach_click = {
        let picker = picker.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(picker) = picker.cast::<HtmlInputElement>() {
                picker.click();
            }
        })
    };
    let on_picked = props.on_files.reform(|e: Event| {
        let Some(picker) = e.target_dyn_into::<HtmlInputElement>() else { return Vec::new() };
        let files = from_list(picker.files());
        // The same file may be picked again after its chip was removed.
        picker.set_value("");
        files
    });
    let onpaste = {
        let on_files = props.on_files.clone();
        Callback::from(move |e: Event| {
            let Some(e) = e.dyn_ref::<ClipboardEvent>() else { return };
            let files = from_list(e.clipboard_data().and_then(|d| d.files()));
            // Pasted text goes in the input as usual; pasted files become chips.
            if !files.is_empty() {
                e.prevent_default();
                on_files.emit(files);
            }
        })
    };
    let on_remove_file = {
        let (input, on_remove) = (input.clone(), props.on_remove_file.clone());
        Callback::from(move |id: u32| {
            on_remove.emit(id);
            // The chip and its button are gone: the keyboard goes on from the input.
            if let Some(area) = input.cast::<HtmlTextAreaElement>() {
                let _ = area.focus();
            }
        })
    };
    let (ondragover, ondragleave, ondrop) = drop_handlers(props, &dropping);
    FileInputs {
        picker,
        dropping: *dropping,
        on_attach_click,
        on_picked,
        onpaste,
        ondragover,
        ondragleave,
        ondrop,
        on_remove_file,
    }
}

/// Files dragged over the composer mark it; dropped, they become chips.
fn drop_handlers(
    props: &Props,
    dropping: &UseStateHandle<bool>,
) -> (Callback<DragEvent>, Callback<DragEvent>, Callback<DragEvent>) {
    let ondragover = {
        let dropping = dropping.clone();
        Callback::from(move |e: DragEvent| {
            let carries_files = e.data_transfer().is_some_and(|d| {
                d.types().iter().any(|t| t.as_string().as_deref() == Some("Files"))
            });
            if carries_files {
                e.prevent_default();
                if !*dropping {
                    dropping.set(true);
                }
            }
        })
    };
    let ondragleave = {
        let dropping = dropping.clone();
        Callback::from(move |_: DragEvent| dropping.set(false))
    };
    let ondrop = {
        let (dropping, on_files) = (dropping.clone(), props.on_files.clone());
        Callback::from(move |e: DragEvent| {
            dropping.set(false);
            let files = from_list(e.data_transfer().and_then(|d| d.files()));
            if !files.is_empty() {
                e.prevent_default();
                on_files.emit(files);
            }
        })
    };
    (ondragover, ondragleave, ondrop)
}
