//! One field of a form made from a JSON Schema (see `core::tools::form`): an elicitation's or a
//! tool's in the tool browser, where a group is a fieldset and a list has Add and Remove.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::tools::form::{
    add_item, get, parse_input, remove_item, set, Field, FieldKind, ListOf, Step,
};
use serde_json::{Map, Value};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The values typed so far, by field name.
pub type Values = Rc<RefCell<Map<String, Value>>>;

/// One field under `parent`; every change writes the typed value (or removes it) in `values`,
/// and an item added or removed redraws the form with `redraw`.
pub fn form_field(field: &Field, parent: &[Step], values: &Values, redraw: &Callback<()>) -> Html {
    let path = [parent, &[Step::Key(field.name.clone())]].concat();
    let label = html! { <>{ &field.label }{ if field.required { " *" } else { "" } }</> };
    let hint = field.description.as_ref().map(|d| html! { <small class="hint">{ d }</small> });
    let group = |body: Html| {
        html! {
            <fieldset class="field group" data-field={field.name.clone()}>
                <legend>{ label.clone() }</legend>
                { hint.clone() }
                { body }
            </fieldset>
        }
    };
    match &field.kind {
        FieldKind::Group(fields) => {
            group(fields.iter().map(|f| form_field(f, &path, values, redraw)).collect())
        }
        FieldKind::List(list) => group(items(list, &path, values, redraw)),
        kind => html! {
            <label class="field" data-field={field.name.clone()}>
                <span>{ label }</span>
                { input(kind, path, values, None) }
                { hint }
            </label>
        },
    }
}

/// A list's items, each with Remove, and Add; the buttons respect `minItems` and `maxItems`.
fn items(list: &ListOf, path: &[Step], values: &Values, redraw: &Callback<()>) -> Html {
    let count = get(&values.borrow(), path).and_then(Value::as_array).map_or(0, Vec::len);
    let items = (0..count).map(|i| {
        let (n, at) = ((i + 1).to_string(), [path, &[Step::Item(i)]].concat());
        let path = path.to_vec();
        let remove = html! {
            <button type="button" class="link remove" disabled={count <= list.min}
                aria-label={message("panelFormRemoveItem", &[&n])}
                onclick={edit(values, redraw, move |v| remove_item(v, &path, i))}>
                { message("panelFormRemove", &[]) }</button>
        };
        // Keyed by the count too: an item added or removed mounts every input again with its value.
        let key = format!("{count}-{i}");
        match &list.item {
            FieldKind::Group(fields) => html! {
                <fieldset class="field group item" {key}>
                    <legend>{ message("panelFormItem", &[&n]) }</legend>
                    { for fields.iter().map(|f| form_field(f, &at, values, redraw)) }
                    { remove }
                </fieldset>
            },
            kind => html! {
                <div class="list-item" {key}>
                    { input(kind, at, values, Some(message("panelFormItem", &[&n]))) }
                    { remove }
                </div>
            },
        }
    });
    let add = {
        let (path, item) = (path.to_vec(), list.item.clone());
        edit(values, redraw, move |v| add_item(v, &path, &item))
    };
    html! { <>
        { for items }
        <button type="button" class="add" onclick={add}
            disabled={list.max.is_some_and(|max| count >= max)}>{ message("panelFormAddItem", &[]) }</button>
    </> }
}

/// A click that changes the values, then redraws the form.
fn edit(
    values: &Values,
    redraw: &Callback<()>,
    change: impl Fn(&mut Map<String, Value>) + 'static,
) -> Callback<MouseEvent> {
    let (values, redraw) = (values.clone(), redraw.clone());
    Callback::from(move |_: MouseEvent| {
        change(&mut values.borrow_mut());
        redraw.emit(());
    })
}

/// The input of a simple value (or JSON text) at `path`; `label` names it when no label does.
fn input(kind: &FieldKind, path: Vec<Step>, values: &Values, label: Option<String>) -> Html {
    let current = get(&values.borrow(), &path).cloned().unwrap_or(Value::Null);
    let values = values.clone();
    let write = move |value: Option<Value>| set(&mut values.borrow_mut(), &path, value);
    match kind {
        FieldKind::Boolean => {
            let onchange = Callback::from(move |e: Event| {
                write(Some(Value::Bool(e.target_unchecked_into::<HtmlInputElement>().checked())))
            });
            html! { <input type="checkbox" aria-label={label} checked={current == Value::Bool(true)} {onchange} /> }
        }
        FieldKind::Choice(options) | FieldKind::MultiChoice(options) => {
            let multiple = matches!(kind, FieldKind::MultiChoice(_));
            let chosen = |v: &str| match &current {
                Value::Array(list) => list.iter().any(|c| c.as_str() == Some(v)),
                other => other.as_str() == Some(v),
            };
            let onchange = Callback::from(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                if !multiple {
                    return write(Some(Value::String(select.value())));
                }
                let picked = select.selected_options();
                let list = (0..picked.length())
                    .filter_map(|i| picked.item(i))
                    .filter_map(|o| o.get_attribute("value"))
                    .map(Value::String)
                    .collect();
                write(Some(Value::Array(list)));
            });
            html! {
                <select {multiple} aria-label={label} {onchange}>
                    if !multiple && current.is_null() { <option value="" selected=true></option> }
                    { for options.iter().map(|(v, l)| html! { <option value={v.clone()} selected={chosen(v)}>{ l }</option> }) }
                </select>
            }
        }
        FieldKind::Json => {
            let value = if current.is_null() { String::new() } else { current.to_string() };
            let oninput = Callback::from(move |e: InputEvent| {
                let text = e.target_unchecked_into::<HtmlTextAreaElement>().value();
                write(parse_input(&FieldKind::Json, &text))
            });
            html! { <textarea class="json" rows="3" spellcheck="false" aria-label={label} {value} {oninput} /> }
        }
        kind => {
            let kind = kind.clone();
            let value = match &current {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let oninput = Callback::from(move |e: InputEvent| {
                write(parse_input(&kind, &e.target_unchecked_into::<HtmlInputElement>().value()))
            });
            html! { <input aria-label={label} {value} {oninput} /> }
        }
    }
}
