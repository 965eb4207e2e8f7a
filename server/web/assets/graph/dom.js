/* DOM helpers of the graph view: elements are built with textContent
 * and setAttribute only, so a title is never parsed as HTML. */

export function h(tag, attrs, kids) {
  var el = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    if (k === 'text') el.textContent = attrs[k];
    else if (k === 'hidden') el.hidden = attrs[k];
    else el.setAttribute(k, attrs[k]);
  }
  if (kids) kids.forEach(function (c) { if (c) el.appendChild(c); });
  return el;
}
export function opt(value, label) { return h('option', { value: value, text: label }); }
