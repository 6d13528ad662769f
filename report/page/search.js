'use strict';
// search.js: a regular expression over function names, and the share of the weight it
// matches. Pure: no DOM.

// {regex, error}: regex is null for an empty pattern or one that does not compile (error says
// why).
function compileSearch(pattern) {
  if (!pattern) return { regex: null, error: '' };
  try {
    return { regex: new RegExp(pattern), error: '' };
  } catch (e) {
    return { regex: null, error: e.message };
  }
}

// 1 per string id whose name the regex matches: each name is tested once, not once per frame.
function matchNames(strings, regex) {
  const matches = new Uint8Array(strings.length);
  if (regex) for (let i = 0; i < strings.length; i++) matches[i] = regex.test(strings[i]) ? 1 : 0;
  return matches;
}

// The weight of the samples with a matching frame in the subtree of `root`: the outermost
// matching nodes' totals, their subtrees skipped, so that each sample counts once.
function matchedWeight(model, total, matches, root) {
  let weight = 0;
  const end = model.end[root];
  for (let i = root; i < end;) {
    if (matches[model.name[i]] && i !== 0) {
      weight += total[i];
      i = model.end[i];
    } else {
      i++;
    }
  }
  return weight;
}

// A name as a pattern that matches exactly it.
function quoteRegex(text) {
  return '^' + text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
}
