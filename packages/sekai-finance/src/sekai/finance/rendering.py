"""Market charts for dashboards: a price chart with trades and quotes, an order book, a universe.

These are [`sekai.rendering.Panel`][sekai.rendering.Panel] s: put them in a
[`sekai.rendering.Dashboard`][sekai.rendering.Dashboard] next to its generic charts::

    from sekai.finance.rendering import OrderBookChart, PriceChart
    from sekai.rendering import Dashboard, LineChart, Row

    dashboard = Dashboard(
        Row(PriceChart("mid", quotes=("bid_quote", "ask_quote"), position="inventory"),
            OrderBookChart("book", width=0.5)),
        LineChart("pnl", title="PnL", baseline=0.0),
    )

Sources are attribute names of the env or callables taking the env, as
everywhere in dashboards. Panels come from sekai-wrappers' ``sekai.rendering``,
an optional dependency of sekai-finance: the ``sekai-finance[render]``
distribution brings it with Pillow. Without it, importing this module raises an
``ImportError`` saying so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

try:
    from sekai.rendering import Panel, View
    from sekai.rendering.canvas import Canvas
    from sekai.rendering.charts import (
        Box,
        LegendItem,
        Plot,
        format_number,
        step_points,
        triangle,
        value_axis,
        value_range,
    )
    from sekai.rendering.dashboard import ColorSpec, Source, check_source
    from sekai.rendering.text import font_sizes, text_width
    from sekai.rendering.theme import Color, mix
except ImportError as error:  # pragma: no cover (exercised in a subprocess by the tests)
    raise ImportError(
        "sekai.finance.rendering draws dashboard panels with sekai.rendering, from the "
        "sekai-wrappers distribution; install the sekai-finance[render] distribution, "
        "which brings it with Pillow"
    ) from error

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.finance._lob_types import Side

__all__ = ["OrderBookChart", "PriceChart", "UniverseChart"]


def _optional(value: object, what: str) -> Source | None:
    return None if value is None else check_source(value, what)


def _pair(value: object, what: str) -> tuple[Source, Source] | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{what} must be a pair of sources (bid, ask), got {value!r}")
    return (check_source(value[0], f"{what}[0]"), check_source(value[1], f"{what}[1]"))


def _title(value: object, owner: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{owner}: title must be a str or None, got {value!r}")


class PriceChart(Panel):
    """A price over steps with what the agent did: trades, quotes, position, a reference level.

    Args:
        price: The source of the price (the mid, the last trade, a close).
        position: A source of the agent's position: steps held long are
            tinted in the theme's ``up`` colour, short in ``down``.
        quotes: ``(bid, ask)`` sources of the agent's own quotes, drawn as
            step lines (NaN or None where it does not quote).
        spread: ``(best_bid, best_ask)`` sources of the market's best prices,
            drawn as a band around the price.
        buys: A source of the quantity the agent bought at this step: a buy
            marker is drawn at the price when it exceeds ``min_trade``.
        sells: The same for sells.
        context: A source of the prices before the episode's first step
            (oldest first), drawn muted left of the episode so the chart
            opens with the history the agent saw.
        reference: A level drawn as a dashed line (an arrival price, a
            strike): a number or a source.
        reference_label: The reference's legend text.
        title: The panel's title.
        tag: Show the latest price in a tag right of the plot.
        min_trade: Quantities at or below this are not trades.
        width: Relative width in a row.
        height: Relative height in a column.

    Raises:
        TypeError: A source that is neither a str nor a callable.
        ValueError: A negative ``min_trade``.
    """

    def __init__(
        self,
        price: Source,
        *,
        position: Source | None = None,
        quotes: tuple[Source, Source] | None = None,
        spread: tuple[Source, Source] | None = None,
        buys: Source | None = None,
        sells: Source | None = None,
        context: Source | None = None,
        reference: float | Source | None = None,
        reference_label: str | None = None,
        title: str | None = "Price",
        tag: bool = True,
        min_trade: float = 1e-6,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(_title(title, "PriceChart"), width=width, height=height)
        self.price = check_source(price, "PriceChart: price")
        self.position = _optional(position, "PriceChart: position")
        self.quotes = _pair(quotes, "PriceChart: quotes")
        self.spread = _pair(spread, "PriceChart: spread")
        self.buys = _optional(buys, "PriceChart: buys")
        self.sells = _optional(sells, "PriceChart: sells")
        self.price_context = _optional(context, "PriceChart: context")
        if reference is None or isinstance(reference, str) or callable(reference):
            self.reference: float | Source | None = _optional(reference, "PriceChart: reference")
        else:
            self.reference = check_real(reference, "PriceChart: reference")
        self.reference_label = reference_label
        self.tag = check_bool(tag, "PriceChart: tag")
        self.min_trade = check_real(min_trade, "PriceChart: min_trade", minimum=0.0)

    def sources(self) -> Mapping[str, Source]:
        """The recorded values: ``price`` and whichever optional series were given."""
        keys: dict[str, Source] = {"price": self.price}
        optional = {
            "position": self.position,
            "buys": self.buys,
            "sells": self.sells,
            "bid_quote": None if self.quotes is None else self.quotes[0],
            "ask_quote": None if self.quotes is None else self.quotes[1],
            "best_bid": None if self.spread is None else self.spread[0],
            "best_ask": None if self.spread is None else self.spread[1],
            "reference": None if isinstance(self.reference, float) else self.reference,
        }
        keys.update({key: source for key, source in optional.items() if source is not None})
        return keys

    def context(self) -> Mapping[str, Source]:
        """``context``: the prices before the episode, read for the current frame."""
        return {} if self.price_context is None else {"context": self.price_context}

    def _context_prices(self, view: View) -> NDArray[np.float64]:
        if self.price_context is None:
            return np.zeros(0)
        value = view.context("context")
        if value is None:
            return np.zeros(0)
        return np.asarray(value, dtype=np.float64).ravel()

    def x_start(self, view: View) -> float | None:
        """The first recorded step minus the length of the context, when there is one."""
        before = self._context_prices(view)
        if before.size == 0 or len(view.steps) == 0:
            return None
        return float(view.steps[0]) - before.size

    def fills(self, view: View) -> dict[str, list[tuple[float, float]]]:
        """The trade markers: ``{"buys": [(step, price), ...], "sells": [...]}``."""
        prices = view.values("price")
        markers: dict[str, list[tuple[float, float]]] = {"buys": [], "sells": []}
        for key, source in (("buys", self.buys), ("sells", self.sells)):
            if source is None:
                continue
            quantities = np.nan_to_num(view.values(key))
            if quantities.ndim > 1:
                quantities = np.abs(quantities).sum(axis=1)
            for i in np.flatnonzero(np.abs(quantities) > self.min_trade):
                if np.isfinite(prices[i]):
                    markers[key].append((float(view.steps[i]), float(prices[i])))
        return markers

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the price, its context, quotes, spread, position tint, trades and reference."""
        theme = view.theme
        steps = view.steps
        prices = view.values("price")
        before = self._context_prices(view)
        reference = self._reference(view)
        fills = self.fills(view)
        items: list[LegendItem] = [("Price", theme.price, "line")]
        if self.spread is not None:
            items.append(("Spread", theme.neutral, "area"))
        if self.quotes is not None:
            items.append(("Quotes", theme.accent, "line"))
        if fills["buys"]:
            items.append(("Buy", theme.up, "marker"))
        if fills["sells"]:
            items.append(("Sell", theme.down, "marker"))
        if reference is not None and self.reference_label:
            items.append((self.reference_label, theme.highlight, "dash"))
        plot_box = self.frame(canvas, box, view, items)
        series = [prices, before]
        for key in ("bid_quote", "ask_quote", "best_bid", "best_ask"):
            if key in self.sources():
                series.append(view.values(key))
        low, high = value_range(*series, include=[] if reference is None else [reference])
        ticks, labels, decimals = value_axis(plot_box, low, high, scale=view.scale)
        latest = prices[np.isfinite(prices)]
        tag_text = format_number(latest[-1], decimals + 1) if latest.size and self.tag else None
        if tag_text is not None:
            plot_box = plot_box.inset(
                0, 0, text_width(tag_text, view.size(font_sizes["tag"])) + view.size(10), 0
            )
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), theme, scale=view.scale)
        plot.y_axis(ticks, labels)
        if self.position is not None:
            self._draw_position(plot, view, steps)
        if before.size and len(steps):
            xs = steps[0] - before.size + np.arange(before.size + 1)
            context_line = np.append(before, prices[0])
            canvas.polyline(plot.points(xs, context_line), theme.text_muted, view.size(1.4))
        if self.spread is not None:
            bids, asks = view.values("best_bid"), view.values("best_ask")
            canvas.fill_between(
                plot.x(steps), plot.y(bids), plot.y(asks), theme.neutral, alpha=0.25
            )
        if reference is not None:
            plot.hline(reference, theme.highlight, width=1.2, dash=(6, 4))
        if self.quotes is not None:
            for key, color in (("bid_quote", theme.up), ("ask_quote", theme.down)):
                xs, ys = step_points(steps, view.values(key))
                canvas.polyline(plot.points(xs, ys), mix(color, theme.accent, 0.35), view.size(1.3))
        canvas.polyline(plot.points(steps, prices), theme.price, view.size(1.8))
        size = max(view.size(9), 6.0)  # trade markers stay visible in small frames
        for key, color, up, sign in (("buys", theme.up, True, -1), ("sells", theme.down, False, 1)):
            for step, price in fills[key]:
                x, y = float(plot.x(step)), float(plot.y(price)) + sign * size * 0.9
                canvas.polygon(triangle(x, y, size, up=up), color)
        self.time_axis(plot, view)
        if tag_text is not None:
            plot.tag(float(latest[-1]), tag_text, theme.price)

    def _reference(self, view: View) -> float | None:
        if self.reference is None:
            return None
        if isinstance(self.reference, float):
            return self.reference
        value = view.latest("reference")
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        return number if math.isfinite(number) else None

    def _draw_position(self, plot: Plot, view: View, steps: NDArray[np.float64]) -> None:
        position = np.nan_to_num(view.values("position"))
        if position.ndim > 1:
            position = position.sum(axis=1)
        sign = np.sign(position)
        start = 0
        for i in range(1, len(sign) + 1):
            if i == len(sign) or sign[i] != sign[start]:
                if sign[start] != 0:
                    color = view.theme.up if sign[start] > 0 else view.theme.down
                    plot.band(steps[start] - 0.5, steps[i - 1] + 0.5, color, alpha=0.08)
                start = i


def _owner_entries(owners: object, what: str) -> dict[int, tuple[str, ColorSpec]]:
    if not isinstance(owners, Mapping):
        raise TypeError(f"{what} must map owner ids to (label, colour), got {owners!r}")
    entries: dict[int, tuple[str, ColorSpec]] = {}
    for owner, entry in owners.items():
        owner_id = check_int(owner, f"{what}: owner id")
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise TypeError(f"{what}[{owner!r}] must be a (label, colour) pair, got {entry!r}")
        entries[owner_id] = (str(entry[0]), entry[1])
    return entries


class OrderBookChart(Panel):
    """The best levels of a limit order book: asks above, bids below, sized bars, owners' shares.

    Args:
        book: A source of the book: a [`OrderBook`][sekai.finance.OrderBook],
            or anything with its ``depth(levels)`` method, or the four arrays
            ``depth`` returns (bid prices, bid sizes, ask prices, ask sizes).
        owners: Owners to highlight: ``{owner_id: (label, colour)}`` (or a
            source of one). The part of each level resting for an owner is
            drawn in its colour (needs a book with ``orders_of(owner)``).
        levels: How many levels per side (>= 1).
        title: The panel's title.
        width: Relative width in a row.
        height: Relative height in a column.

    Raises:
        TypeError: ``book`` is not a source, or ``owners`` is malformed.
        ValueError: ``levels`` < 1.
    """

    timeseries = False

    def __init__(
        self,
        book: Source,
        *,
        owners: Mapping[int, tuple[str, ColorSpec]] | Source | None = None,
        levels: int = 8,
        title: str | None = "Order book",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(_title(title, "OrderBookChart"), width=width, height=height)
        self.book = check_source(book, "OrderBookChart: book")
        if owners is None or isinstance(owners, str) or callable(owners):
            self.owners: Mapping[int, tuple[str, ColorSpec]] | Source | None = owners
        else:
            self.owners = _owner_entries(owners, "OrderBookChart: owners")
        self.levels = check_int(levels, "OrderBookChart: levels", minimum=1)

    def sources(self) -> Mapping[str, Source]:
        """``book`` (and ``owners`` when it is a source)."""
        keys: dict[str, Source] = {"book": self.book}
        if isinstance(self.owners, str) or callable(self.owners):
            keys["owners"] = self.owners
        return keys

    def _depth(self, book: Any) -> tuple[NDArray[np.float64], ...]:
        depth = getattr(book, "depth", None)
        rows = depth(self.levels) if callable(depth) else book
        try:
            arrays = tuple(np.asarray(row, dtype=np.float64).ravel() for row in rows)
        except (TypeError, ValueError):
            arrays = ()
        if len(arrays) != 4:
            raise TypeError(
                f"OrderBookChart: the book source must give an OrderBook (or anything with "
                f"depth(levels)) or four arrays (bid prices, bid sizes, ask prices, ask sizes), "
                f"got {book!r}"
            )
        return arrays

    def _owned(
        self, book: Any, owners: Mapping[int, Any]
    ) -> dict[int, dict[tuple[int, int], float]]:
        """Per owner: the quantity it has resting at each ``(side, price)``."""
        orders_of = getattr(book, "orders_of", None)
        if not callable(orders_of):
            return {}
        owned: dict[int, dict[tuple[int, int], float]] = {}
        for owner in owners:
            levels: dict[tuple[int, int], float] = {}
            for order in orders_of(owner):
                key = (int(order.side), int(order.price))
                levels[key] = levels.get(key, 0.0) + float(order.quantity)
            owned[owner] = levels
        return owned

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the book's levels at the current step."""
        theme = view.theme
        book = view.latest("book")
        owners: Mapping[int, tuple[str, ColorSpec]] = {}
        if isinstance(self.owners, Mapping):
            owners = self.owners
        elif self.owners is not None:
            owners = _owner_entries(view.latest("owners") or {}, "OrderBookChart: owners")
        colors = {
            owner: view.color(color, i) for i, (owner, (_, color)) in enumerate(owners.items())
        }
        items: list[LegendItem] = [(label, colors[o], "area") for o, (label, _) in owners.items()]
        plot_box = self.frame(canvas, box, view, items, gutter=False)
        size = view.size(font_sizes["label"])
        if book is None:
            canvas.text(
                *plot_box.center,
                "no book",
                theme.text_muted,
                size=size,
                align="center",
                valign="middle",
            )
            return
        bid_prices, bid_sizes, ask_prices, ask_sizes = self._depth(book)
        owned = self._owned(book, owners) if owners else {}
        asks = [(p, s) for p, s in zip(ask_prices, ask_sizes, strict=True) if s > 0][::-1]
        bids = [(p, s) for p, s in zip(bid_prices, bid_sizes, strict=True) if s > 0]
        if not asks and not bids:
            canvas.text(
                *plot_box.center,
                "empty book",
                theme.text_muted,
                size=size,
                align="center",
                valign="middle",
            )
            return
        n = 2 * self.levels + 1  # asks, the spread row, bids
        row = plot_box.height / n
        label_width = max(
            text_width(format_number(p, 0), size) for p, _ in [*asks, *bids]
        ) + view.size(8)
        bars = plot_box.inset(label_width, 0, 0, 0)
        biggest = max(s for _, s in [*asks, *bids])
        for rows, side, color, first_row in (
            (asks, Side.ASK, theme.down, self.levels - len(asks)),
            (bids, Side.BID, theme.up, self.levels + 1),
        ):
            for j, (price, quantity) in enumerate(rows):
                top = plot_box.top - (first_row + j) * row
                bottom, middle = top - row * 0.82, top - row * 0.41
                right = bars.left + bars.width * 0.82 * quantity / biggest
                canvas.rect(bars.left, bottom, right, top, color, alpha=0.35)
                start = bars.left
                for owner, levels in owned.items():
                    mine = levels.get((int(side), int(price)), 0.0)
                    if mine > 0:
                        end = start + (right - bars.left) * min(1.0, mine / quantity)
                        canvas.rect(start, bottom, end, top, colors[owner])
                        start = end
                canvas.text(
                    bars.left - view.size(6),
                    middle,
                    format_number(price, 0),
                    theme.text_secondary,
                    size=size,
                    align="right",
                    valign="middle",
                )
                canvas.text(
                    right + view.size(4),
                    middle,
                    format_number(quantity, 0),
                    theme.text,
                    size=size,
                    valign="middle",
                )
        middle = plot_box.top - self.levels * row - row * 0.41
        if asks and bids:
            best_bid, best_ask = bids[0][0], asks[-1][0]
            text = (
                f"mid {format_number((best_bid + best_ask) / 2, 1)} \u00b7 spread "
                f"{format_number(best_ask - best_bid, 0)}"
            )
            canvas.text(bars.left, middle, text, theme.text_muted, size=size, valign="middle")


class UniverseChart(Panel):
    """A universe of asset slots as a grid of cells, shaded by weight, unlisted slots hollow.

    For markets whose assets list and delist over time: each slot is a cell
    whose colour deepens with the size of its weight (``color`` for long,
    ``negative_color`` for short); slots that are not available now are drawn
    as empty outlines.

    Args:
        weights: A source of the weight (or any signed size) of every slot.
        available: A source of booleans: which slots hold a listed asset.
        labels: A name per slot: a sequence of str or a source of one;
            by default the slot's index.
        color: The colour of positive weights.
        negative_color: The colour of negative weights.
        title: The panel's title.
        width: Relative width in a row.
        height: Relative height in a column.
    """

    timeseries = False

    def __init__(
        self,
        weights: Source,
        *,
        available: Source | None = None,
        labels: Sequence[str] | Source | None = None,
        color: ColorSpec = "accent",
        negative_color: ColorSpec = "down",
        title: str | None = "Universe",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(_title(title, "UniverseChart"), width=width, height=height)
        self.weights = check_source(weights, "UniverseChart: weights")
        self.available = _optional(available, "UniverseChart: available")
        if labels is not None and not isinstance(labels, str) and not callable(labels):
            labels = [str(label) for label in labels]
        self.labels = labels
        self.color = color
        self.negative_color = negative_color

    def sources(self) -> Mapping[str, Source]:
        """``weights``, and ``available`` / ``labels`` when they are sources."""
        keys: dict[str, Source] = {"weights": self.weights}
        if self.available is not None:
            keys["available"] = self.available
        if isinstance(self.labels, str) or callable(self.labels):
            keys["labels"] = self.labels
        return keys

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw one cell per slot at the current step."""
        theme = view.theme
        latest = view.latest("weights")
        weights = np.asarray([] if latest is None else latest, dtype=np.float64).ravel()
        n = weights.size
        plot_box = self.frame(canvas, box, view, gutter=False)
        size = view.size(font_sizes["label"])
        if n == 0:
            canvas.text(
                *plot_box.center,
                "no slots",
                theme.text_muted,
                size=size,
                align="center",
                valign="middle",
            )
            return
        available = np.ones(n, dtype=bool)
        if self.available is not None and view.latest("available") is not None:
            mask = np.asarray(view.latest("available")).ravel().astype(bool)
            available[: min(n, mask.size)] = mask[:n]
        given: Any = view.latest("labels") if "labels" in self.sources() else self.labels
        names = [str(v) for v in list(given or [])[:n]]
        names += [str(i) for i in range(len(names), n)]
        aspect = plot_box.width / max(plot_box.height, 1.0)
        columns = max(1, min(n, round(math.sqrt(n * aspect))))
        rows = math.ceil(n / columns)
        cell_w, cell_h = plot_box.width / columns, plot_box.height / rows
        gap = view.size(3)
        largest = float(np.nanmax(np.abs(weights))) if np.isfinite(weights).any() else 0.0
        positive, negative = view.color(self.color), view.color(self.negative_color)
        for i in range(n):
            left = plot_box.left + (i % columns) * cell_w
            top = plot_box.top - (i // columns) * cell_h
            cell = Box(left, top - cell_h + gap, left + cell_w - gap, top)
            weight = weights[i]
            if available[i]:
                strength = abs(weight) / largest if largest > 0 and np.isfinite(weight) else 0.0
                tone: Color = positive if weight >= 0 else negative
                fill = mix(theme.background, tone, 0.12 + 0.88 * strength)
                canvas.rect(cell.left, cell.bottom, cell.right, cell.top, fill, radius=view.size(3))
                ink = theme.ink_on(fill)
                lines = [names[i], format_number(weight, 1, percent=True)]
            else:
                canvas.polyline(
                    [
                        (cell.left, cell.bottom),
                        (cell.left, cell.top),
                        (cell.right, cell.top),
                        (cell.right, cell.bottom),
                        (cell.left, cell.bottom),
                    ],
                    theme.neutral,
                    view.size(1),
                )
                ink = theme.text_muted
                lines = [names[i], "\u2013"]
            self._label(canvas, cell, lines, ink, size)

    @staticmethod
    def _label(canvas: Canvas, cell: Box, lines: list[str], ink: Color, size: float) -> None:
        cx, cy = cell.center
        if cell.height >= size * 2.6 and max(text_width(t, size) for t in lines) < cell.width:
            canvas.text(
                cx,
                cy + size * 0.15,
                lines[0],
                ink,
                size=size,
                bold=True,
                align="center",
                valign="bottom",
            )
            canvas.text(
                cx, cy - size * 0.15, lines[1], ink, size=size, align="center", valign="top"
            )
        elif cell.height >= size * 1.2 and text_width(lines[0], size) < cell.width:
            canvas.text(cx, cy, lines[0], ink, size=size, align="center", valign="middle")
