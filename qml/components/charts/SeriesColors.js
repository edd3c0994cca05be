// Fixed line colours per channel row, readable on light and dark backgrounds.
.pragma library

var colors = ["#3b82f6", "#e0892b", "#2ea36b", "#c04fd6", "#e04f5f", "#17a2b8", "#9a7b4f", "#7a8a99"]

function forRow(row) {
    const n = colors.length
    return colors[((row % n) + n) % n]
}
