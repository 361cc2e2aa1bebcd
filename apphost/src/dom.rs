//! A few DOM helpers: the app host builds its small UI (a bar, a prompt, a log) by hand
//! rather than bring a second UI framework into the page.

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement};

pub fn document() -> Document {
    web_sys::window().and_then(|w| w.document()).expect_throw("a page has a document")
}

/// `<tag class="…">`.
pub fn element(tag: &str, class: &str) -> Element {
    let element = document().create_element(tag).expect_throw("a known tag");
    if !class.is_empty() {
        element.set_class_name(class);
    }
    element
}

/// A `<button type="button">` with an icon (our own SVG) and a title (its accessible name).
pub fn icon_button(icon: &str, title: &str) -> HtmlElement {
    let button = button("", title, "icon");
    button.set_inner_html(icon);
    button
}

/// A `<button type="button">` with a visible label and a title (also its accessible name).
pub fn button(label: &str, title: &str, class: &str) -> HtmlElement {
    let button: HtmlElement = element("button", class).unchecked_into();
    let _ = button.set_attribute("type", "button");
    if !title.is_empty() {
        let _ = button.set_attribute("title", title);
        let _ = button.set_attribute("aria-label", title);
    }
    button.set_text_content(Some(label));
    button
}

/// Sets or removes an attribute.
pub fn toggle_attribute(element: &Element, name: &str, on: bool) {
    let _ = if on { element.set_attribute(name, "") } else { element.remove_attribute(name) };
}

/// The bar's icons: inline SVG in the text colour (an icon font or a rare glyph may be missing).
pub mod icons {
    const OPEN: &str = "<svg viewBox=\"0 0 16 16\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.6\" stroke-linecap=\"round\" stroke-linejoin=\"round\" aria-hidden=\"true\">";
    const CLOSE: &str = "</svg>";

    fn svg(path: &str) -> String {
        format!("{OPEN}{path}{CLOSE}")
    }

    pub fn expanded() -> String {
        svg("<path d=\"M4 6l4 4 4-4\"/>")
    }
    pub fn collapsed() -> String {
        svg("<path d=\"M6 4l4 4-4 4\"/>")
    }
    pub fn fullscreen() -> String {
        svg("<path d=\"M3 6V3h3M10 3h3v3M13 10v3h-3M6 13H3v-3\"/>")
    }
    pub fn exit() -> String {
        svg("<path d=\"M4 4l8 8M12 4l-8 8\"/>")
    }
    pub fn reload() -> String {
        svg("<path d=\"M13 8a5 5 0 1 1-1.5-3.6M13 3v3h-3\"/>")
    }
}
