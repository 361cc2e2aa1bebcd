//! `readable_text_f1=` and `read_page_ms=` of `cargo xtask bench`: the page reader on
//! scrapinghub/article-extraction-benchmark (MIT, github.com/scrapinghub/article-extraction-
//! benchmark), 181 saved pages with the article body a person marked on each, at a pinned
//! commit. `tests/bench/readable_text.mjs` reads every page in Chromium as the extension does;
//! core renders what it read ([`PageRead::markdown`], link targets left out: the ground truth
//! has none); [`score`] is the repository's own metric.
//!
//! The corpus is not on a package registry. It is read from `GEMIPANEL_ARTICLE_BENCHMARK`: a
//! checkout (with `ground-truth.json` and `html/`) or a git directory holding [`PINNED`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gemipanel_core::page::extract::{Links, PageRead};
use regex::Regex;

use crate::util::{self, Cmd, Result};

/// The benchmark's commit: "Merge pull request #27 … Add Rust backends + versioned extractor
/// outputs" (2026-03-01); its pages and ground truth are those of the 2020 release.
pub const PINNED: &str = "4a3bc979f76c0df73cb95fe272e2fc1b96f9f010";
const ENV: &str = "GEMIPANEL_ARTICLE_BENCHMARK";
/// Where a fetched copy was kept on the machines this was written on.
const DEFAULT: &str = "/work/.mirror/scrapinghub+article-extraction-benchmark/repo";

/// The figures, or why they could not be measured (printed instead, the rest of the bench
/// goes on: a benchmark reports numbers, it does not pass or fail).
pub fn run() -> Result<Vec<(String, String)>> {
    let corpus = match corpus() {
        Ok(dir) => dir,
        Err(why) => {
            println!("readable text: not measured: {why}");
            return Ok(Vec::new());
        }
    };
    let out = util::target_dir().join("bench").join("readable_text.json");
    let (ok, printed) = Cmd::new("node")
        .arg(util::tests_dir().join("bench").join("readable_text.mjs"))
        .env("GEMIPANEL_DIST", util::dist_dir())
        .env("GEMIPANEL_EXTENSION_ID", util::extension_id()?)
        .env("GEMIPANEL_OUT", util::target_dir().join("bench"))
        .env("GEMIPANEL_ARTICLE_PAGES", &corpus)
        .env("GEMIPANEL_ARTICLE_OUT", &out)
        .dir(util::root())
        .run_tee()?;
    if !ok {
        return Err("the readable text benchmark failed".into());
    }
    let truth = read_json(&corpus.join("ground-truth.json"))?;
    let read = read_json(&out)?;
    let mut pairs = Vec::new();
    for (id, entry) in truth.as_object().into_iter().flatten() {
        let expected = entry["articleBody"].as_str().unwrap_or_default().to_owned();
        let page: PageRead =
            read.get(id).and_then(|r| serde_json::from_value(r.clone()).ok()).unwrap_or_default();
        pairs.push((expected, page.markdown(Links::TextOnly)));
    }
    // In the benchmark's own format, to score with its evaluate.py too.
    let predictions: serde_json::Map<String, serde_json::Value> = truth
        .as_object()
        .into_iter()
        .flatten()
        .zip(&pairs)
        .map(|((id, _), (_, text))| (id.clone(), serde_json::json!({ "articleBody": text })))
        .collect();
    let predicted = util::target_dir().join("bench").join("readable_text_predictions.json");
    std::fs::write(&predicted, serde_json::Value::Object(predictions).to_string())
        .map_err(|e| format!("writing {}: {e}", predicted.display()))?;
    let metrics = score(&pairs);
    let mut figures = vec![
        ("readable_text_f1".to_owned(), format!("{:.3}", metrics.f1)),
        ("readable_text_precision".to_owned(), format!("{:.3}", metrics.precision)),
        ("readable_text_recall".to_owned(), format!("{:.3}", metrics.recall)),
        ("readable_text_accuracy".to_owned(), format!("{:.3}", metrics.accuracy)),
    ];
    figures.extend(crate::bench::figures_in(&printed));
    Ok(figures)
}

/// The corpus unpacked: `ground-truth.json` and `html/<id>.html.gz`.
fn corpus() -> std::result::Result<PathBuf, String> {
    let given = std::env::var_os(ENV).map(PathBuf::from);
    let source = given.clone().unwrap_or_else(|| PathBuf::from(DEFAULT));
    if source.join("ground-truth.json").is_file() && source.join("html").is_dir() {
        return Ok(source);
    }
    let is_git = source.join("HEAD").is_file() || source.join(".git").exists();
    if !is_git {
        return Err(format!(
            "{} holds no copy of scrapinghub/article-extraction-benchmark. Clone \
             github.com/scrapinghub/article-extraction-benchmark (MIT; about 60 MB), check out \
             {PINNED}, and set {ENV} to the folder (or to its git directory)",
            source.display()
        ));
    }
    let unpacked =
        util::target_dir().join("bench").join(format!("article-extraction-{}", &PINNED[..8]));
    if unpacked.join("ground-truth.json").is_file() {
        return Ok(unpacked);
    }
    std::fs::create_dir_all(&unpacked)
        .map_err(|e| format!("creating {}: {e}", unpacked.display()))?;
    let tar = unpacked.join("corpus.tar");
    Cmd::new("git")
        .arg(format!("--git-dir={}", git_dir(&source).display()))
        .args(["archive", "--format=tar", "-o"])
        .arg(&tar)
        .args([PINNED, "ground-truth.json", "html"])
        .run()
        .map_err(|e| format!("{e}: the copy in {} lacks commit {PINNED}", source.display()))?;
    Cmd::new("tar").arg("-xf").arg(&tar).arg("-C").arg(&unpacked).run()?;
    std::fs::remove_file(&tar).map_err(|e| e.to_string())?;
    Ok(unpacked)
}

fn git_dir(source: &Path) -> PathBuf {
    if source.join(".git").is_dir() {
        source.join(".git")
    } else {
        source.to_owned()
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// The benchmark's figures over a corpus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    pub f1: f64,
    pub precision: f64,
    pub recall: f64,
    /// Documents whose tokens equal the truth's exactly.
    pub accuracy: f64,
}

/// The metric of the benchmark's `evaluate.py` (at [`PINNED`]), re-implemented: text is cut
/// into `\w+` tokens, and into shingles of 4 consecutive tokens (one shingle of all tokens
/// when there are fewer); per document the shingle multisets give true positives, false
/// positives and false negatives, normalised by their sum so that every document weighs the
/// same; precision is the mean over documents with tp + fp > 0, recall the mean over those
/// with tp + fn > 0, and F1 the harmonic mean of the two means. (Its bootstrap deviations are
/// left out.) `pairs` are (truth, prediction).
pub fn score(pairs: &[(String, String)]) -> Metrics {
    let tokenizer = Regex::new(WORD).unwrap_or_else(|e| panic!("the token pattern: {e}"));
    let mut precisions = Vec::new();
    let mut recalls = Vec::new();
    let mut exact = 0usize;
    for (truth, prediction) in pairs {
        let true_tokens = tokens(&tokenizer, truth);
        let predicted_tokens = tokens(&tokenizer, prediction);
        if true_tokens == predicted_tokens {
            exact += 1;
        }
        let (tp, fp, fn_) = shingle_matching(&true_tokens, &predicted_tokens);
        if tp + fp > 0.0 {
            precisions.push(precision_score(tp, fp, fn_));
        }
        if tp + fn_ > 0.0 {
            recalls.push(recall_score(tp, fp, fn_));
        }
    }
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    let (precision, recall) = (mean(&precisions), mean(&recalls));
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Metrics { f1, precision, recall, accuracy: exact as f64 / pairs.len().max(1) as f64 }
}

/// Python's `\w` on `str`: letters (`L*`), numbers (`N*`) and `_`, which is what `isalnum()`
/// and the underscore take; not the marks Rust's `char::is_alphabetic` counts as alphabetic.
const WORD: &str = r"[\p{L}\p{N}_]+";

fn tokens<'a>(tokenizer: &Regex, text: &'a str) -> Vec<&'a str> {
    tokenizer.find_iter(text).map(|m| m.as_str()).collect()
}

fn shingle_matching(truth: &[&str], prediction: &[&str]) -> (f64, f64, f64) {
    let shingles = |tokens: &[&str]| {
        let mut counts: HashMap<Vec<String>, usize> = HashMap::new();
        let n = 4;
        for i in 0..tokens.len().saturating_sub(n - 1).max(1) {
            let shingle: Vec<String> =
                tokens.iter().skip(i).take(n).map(|t| t.to_string()).collect();
            if !shingle.is_empty() {
                *counts.entry(shingle).or_default() += 1;
            }
        }
        counts
    };
    let (true_shingles, predicted) = (shingles(truth), shingles(prediction));
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    let keys: std::collections::HashSet<&Vec<String>> =
        true_shingles.keys().chain(predicted.keys()).collect();
    for key in keys {
        let t = *true_shingles.get(key).unwrap_or(&0) as f64;
        let p = *predicted.get(key).unwrap_or(&0) as f64;
        tp += t.min(p);
        fp += (p - t).max(0.0);
        fn_ += (t - p).max(0.0);
    }
    let sum = tp + fp + fn_;
    if sum > 0.0 {
        (tp / sum, fp / sum, fn_ / sum)
    } else {
        (tp, fp, fn_)
    }
}

fn precision_score(tp: f64, fp: f64, fn_: f64) -> f64 {
    if fp == 0.0 && fn_ == 0.0 {
        1.0
    } else if tp == 0.0 && fp == 0.0 {
        0.0
    } else {
        tp / (tp + fp)
    }
}

fn recall_score(tp: f64, fp: f64, fn_: f64) -> f64 {
    if fp == 0.0 && fn_ == 0.0 {
        1.0
    } else if tp == 0.0 && fn_ == 0.0 {
        0.0
    } else {
        tp / (tp + fn_)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(truth: &str, prediction: &str) -> (String, String) {
        (truth.to_owned(), prediction.to_owned())
    }

    /// Values computed with the benchmark's own evaluate.py (at [`PINNED`]):
    /// `metrics_from_tp_fp_fns([string_shingle_matching(t, p) for t, p in pairs])`.
    #[test]
    fn the_metric_gives_what_evaluate_py_gives() {
        let pairs = [
            pair(
                "The quick brown fox jumps over the lazy dog.",
                "Menu. The quick brown fox jumps over the lazy dog. Footer",
            ),
            pair("One two three", "One two three"),
            pair("Alpha beta gamma delta epsilon", ""),
            pair("日本語 の テキスト です。 ね", "日本語 の テキスト です。"),
        ];
        let metrics = score(&pairs);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(metrics.precision, EXPECTED.0), "{metrics:?}");
        assert!(close(metrics.recall, EXPECTED.1), "{metrics:?}");
        assert!(close(metrics.f1, EXPECTED.2), "{metrics:?}");
        assert!(close(metrics.accuracy, 0.25), "{metrics:?}");
    }

    /// (precision, recall, f1) from evaluate.py for the pairs above.
    const EXPECTED: (f64, f64, f64) = (0.9166666666666666, 0.625, 0.7432432432432433);

    #[test]
    fn tokens_are_pythons_word_characters() {
        let tokenizer = Regex::new(WORD).unwrap();
        // A Devanagari vowel sign (a mark) splits a word for Python's \w.
        assert_eq!(tokens(&tokenizer, "नमस्ते a_b c-d ½"), ["नमस", "त", "a_b", "c", "d", "½"]);
    }
}
