"""Rendering: renderers, dashboards of an env's values, drawing, and frame recording.

Environments do not render themselves: a `Renderer` draws an env's
state. `Dashboard` is a ready-made one that records the values its
panels ask for (`LineChart`, `BarChart`, `StackedArea`,
your own `Panel`) and draws them on a `Canvas` in a
`Theme`. `RecordFrames` collects frames step by step, and
`save_gif` / `save_video` write them.

Drawing needs Pillow, which the ``sekai-wrappers[render]`` distribution brings
(imported when something is first drawn). Writing episodes to a folder as GIF
or PNG files needs imageio, which the ``sekai-wrappers[images]`` distribution
brings.
"""

from sekai.rendering import charts as charts  # a module attribute, as in 0.2
from sekai.rendering.canvas import Canvas, rotate
from sekai.rendering.dashboard import (
    BarChart,
    Column,
    Dashboard,
    LineChart,
    Panel,
    Row,
    Series,
    StackedArea,
    Stat,
    View,
)
from sekai.rendering.recorder import RecordFrames, save_gif, save_video
from sekai.rendering.renderer import ANSIString, BaseRenderer, Renderer, RenderFrame, RGBArray
from sekai.rendering.text import text_width
from sekai.rendering.theme import DARK, LIGHT, Theme, get_theme

__all__ = [  # noqa: RUF022 (grouped by topic)
    # renderers and frames
    "Renderer",
    "BaseRenderer",
    "RenderFrame",
    "RGBArray",
    "ANSIString",
    # dashboards
    "Dashboard",
    "Panel",
    "View",
    "Row",
    "Column",
    "Series",
    "Stat",
    "LineChart",
    "BarChart",
    "StackedArea",
    # themes
    "Theme",
    "LIGHT",
    "DARK",
    "get_theme",
    # drawing (the chart helpers are in the sekai.rendering.charts module)
    "Canvas",
    "rotate",
    "text_width",
    # recording
    "RecordFrames",
    "save_gif",
    "save_video",
]
