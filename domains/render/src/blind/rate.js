// Collects every rating form into one CSV and offers it as a download.
(function () {
  const criteria = [...new Set([...document.querySelectorAll('.criterion')].map(d => d.dataset.criterion))];
  function csvField(text) {
    return /[",\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  document.getElementById('export').addEventListener('click', () => {
    const rater = document.getElementById('rater').value.trim();
    const status = document.getElementById('export-status');
    if (!rater) { status.textContent = 'Enter your rater id first.'; return; }
    const lines = [CANTUS_CSV_HEADER];
    let missing = 0;
    document.querySelectorAll('section.pair').forEach(section => {
      const pair = section.dataset.pair;
      criteria.forEach(c => {
        const name = pair + '-' + c;
        const pref = section.querySelector('input[name="' + name + '-pref"]:checked');
        const a = section.querySelector('select[name="' + name + '-rating-a"]').value;
        const b = section.querySelector('select[name="' + name + '-rating-b"]').value;
        if (!pref || !a || !b) missing += 1;
        lines.push([rater, pair, c, pref ? pref.value : '', a, b].map(csvField).join(','));
      });
    });
    const csv = lines.join('\n') + '\n';
    document.getElementById('csv-output').value = csv;
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    link.download = 'ratings-' + rater.replace(/[^A-Za-z0-9_-]/g, '_') + '.csv';
    document.body.appendChild(link);
    link.click();
    link.remove();
    status.textContent = 'Exported ' + (lines.length - 1) + ' answers' +
      (missing ? ' (' + missing + ' incomplete)' : '') + ' as ' + link.download + '.';
  });
})();
