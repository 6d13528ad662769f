'use strict';
// views.js: the views made of DOM elements: the top-down tree, the bottom-up table, and the
// callers and callees of one function. Names reach the DOM only as textContent.

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

// A table row of cells (strings); the last cell is a function's name, clickable when onName.
function tableRow(cells, onName) {
  const row = element('tr');
  cells.forEach((text, i) => {
    const cell = element('td', i === cells.length - 1 ? 'name' : 'number', text);
    if (onName && i === cells.length - 1) {
      cell.classList.add('link');
      cell.addEventListener('click', onName);
    }
    row.appendChild(cell);
  });
  return row;
}

const TREE_CHILDREN_SHOWN = 200;  // per node; the rest are one "more" line

// The top-down call tree under `container`: a line per node, children made when it is opened.
function renderTree(container, model, weights, onSelect) {
  container.textContent = '';
  const whole = weights.total[0];
  const list = element('div', 'tree');
  addChildren(list, 0, 0);
  container.appendChild(list);
  const first = list.firstChild;
  if (first) first.click();  // the heaviest path's first step is opened

  function addChildren(parentElement, node, level) {
    const children = childrenOf(model, weights.total, node);
    children.slice(0, TREE_CHILDREN_SHOWN).forEach((child) => {
      const line = element('div', 'tree-line');
      line.style.paddingLeft = (level * 14 + 4) + 'px';
      const hasChildren = model.end[child] > child + 1;
      line.appendChild(element('span', 'toggle', hasChildren ? '▸' : ' '));
      line.appendChild(element('span', 'number', formatShare(weights.total[child], whole)));
      line.appendChild(element('span', 'number', formatShare(weights.self[child], whole)));
      const name = element('span', 'name link', model.strings[model.name[child]]);
      name.addEventListener('click', (event) => {
        event.stopPropagation();
        onSelect(model.name[child]);
      });
      line.appendChild(name);
      const box = element('div', 'tree-children');
      let opened = false;
      line.addEventListener('click', () => {
        if (!hasChildren) return;
        if (!opened) addChildren(box, child, level + 1);
        opened = true;
        box.hidden = !box.hidden;
        line.firstChild.textContent = box.hidden ? '▸' : '▾';
      });
      box.hidden = true;
      parentElement.appendChild(line);
      parentElement.appendChild(box);
    });
    if (children.length > TREE_CHILDREN_SHOWN)
      parentElement.appendChild(element('div', 'tree-more',
        (children.length - TREE_CHILDREN_SHOWN) + ' lighter callees not shown'));
  }
}

const TABLE_ROWS_SHOWN = 500;

// The bottom-up (inverted) table: functions by self weight, with their total.
function renderBottomUp(body, model, functions, whole, unit, onSelect) {
  body.textContent = '';
  functions.slice(0, TABLE_ROWS_SHOWN).forEach((f) => {
    body.appendChild(tableRow([formatShare(f.self, whole), formatWeight(f.self, unit),
      formatShare(f.total, whole), formatWeight(f.total, unit), model.strings[f.name]],
      () => onSelect(f.name)));
  });
}

// The callers and callees of function `name` (a string id), each with its share.
function renderDetails(container, model, name, links, whole, unit, onSelect) {
  container.textContent = '';
  if (name < 0) return;
  container.appendChild(element('h3', '', model.strings[name]));
  for (const [title, list] of [['Callers', links.callers], ['Callees', links.callees]]) {
    container.appendChild(element('h4', '', title + (list.length ? '' : ': none')));
    const table = element('table', 'links');
    list.slice(0, TABLE_ROWS_SHOWN).forEach((entry) => table.appendChild(tableRow(
      [formatShare(entry.weight, whole), formatWeight(entry.weight, unit), model.strings[entry.name]],
      () => onSelect(entry.name))));
    container.appendChild(table);
  }
}
