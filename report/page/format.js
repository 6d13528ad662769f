'use strict';
// format.js: numbers as the page shows them. Pure: no DOM.

// "41.27%": part of whole with two decimals, as go tool pprof -top and the text summary print.
function formatShare(part, whole) {
  return (whole > 0 ? (100 * part) / whole : 0).toFixed(2) + '%';
}

// A weight in its unit: nanoseconds as ms or s, counts with thousands separators.
function formatWeight(value, unit) {
  if (unit === 'nanoseconds') {
    if (value >= 1e9) return (value / 1e9).toFixed(2) + ' s';
    if (value >= 1e6) return (value / 1e6).toFixed(2) + ' ms';
    if (value >= 1e3) return (value / 1e3).toFixed(2) + ' µs';
    return value + ' ns';
  }
  return formatCount(value);
}

function formatCount(value) {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
