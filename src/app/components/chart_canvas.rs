//! A `<canvas>` that draws any [`Chart`] through [`canvas::draw_chart_on_canvas`]: sized to its
//! container (a `ResizeObserver`; sharp at `devicePixelRatio`), redrawn in the effect after any
//! render in which its data, theme or size changed (so within the frame of the keystroke),
//! a hover tooltip with exact values from the chart's hit-test, focusable with a text summary as
//! its accessible name, and PNG / SVG download buttons.
//!
//! Nothing here touches the browser while rendering, so it renders natively (SSR tests).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlCanvasElement, MouseEvent};
use yew::prelude::*;

use crate::app::browser;
use crate::app::charts::{canvas, Chart, ChartStyle, Theme};
use crate::engine::search::Layout;
use crate::text::num::Fixed;

/// Props of [`ChartCanvas`].
#[derive(Clone, Debug, PartialEq, Properties)]
pub struct ChartCanvasProps {
    /// What to draw; the canvas redraws whenever this changes (compared by value).
    pub chart: Rc<Chart>,
    /// Element id of the canvas.
    #[prop_or_default]
    pub id: Option<AttrValue>,
    /// Accessible name; defaults to the chart's own text summary.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    /// Light or dark palette.
    #[prop_or_default]
    pub theme: Theme,
    /// Height in CSS pixels (the width follows the container).
    #[prop_or(320)]
    pub height: u32,
    /// Backing-store width before the first draw (then container width × devicePixelRatio).
    #[prop_or(720)]
    pub width: u32,
    /// A click on a search point picks that layout.
    #[prop_or_default]
    pub on_pick: Callback<Layout>,
    /// Show the PNG / SVG download buttons.
    #[prop_or(true)]
    pub downloads: bool,
}

/// What the last draw used, to skip redundant redraws and to hit-test in the drawn layout.
#[derive(Default)]
struct Drawn {
    chart: Option<Rc<Chart>>,
    theme: Theme,
    size: (u32, u32),
}

/// The tooltip: text and where (CSS px inside the frame).
#[derive(Clone, Debug, PartialEq)]
struct Tip {
    text: String,
    x: f64,
    y: f64,
    /// Open to the left of the pointer (it is on the right half).
    flip: bool,
    /// Drawing width, CSS px.
    width: f64,
}

impl Tip {
    /// Inline position: beside the pointer, on the side with room.
    fn style(&self) -> String {
        if self.flip {
            format!(
                "right:{}px;top:{}px",
                Fixed(self.width - self.x + 14.0, 0),
                Fixed(self.y + 14.0, 0)
            )
        } else {
            format!(
                "left:{}px;top:{}px",
                Fixed(self.x + 14.0, 0),
                Fixed(self.y + 14.0, 0)
            )
        }
    }
}

/// The canvas's size in CSS pixels, followed with a `ResizeObserver` (`(0, 0)` before the
/// first report).
#[hook]
fn use_css_size(node: &NodeRef) -> (u32, u32) {
    let size = use_state_eq(|| (0u32, 0u32));
    {
        let (node, size) = (node.clone(), size.clone());
        use_effect_with((), move |_| {
            let watch = node.cast::<HtmlCanvasElement>().and_then(|c| {
                let target = c.clone();
                browser::watch_resize(&c, move || size.set(canvas::css_size(&target)))
            });
            move || drop(watch)
        });
    }
    *size
}

/// What the canvas keeps between renders: the last draw, its failure and the tooltip.
#[derive(Clone)]
struct Canvas {
    node: NodeRef,
    drawn: Rc<RefCell<Drawn>>,
    error: UseStateHandle<Option<String>>,
    tip: UseStateHandle<Option<Tip>>,
}

/// Redraws `chart` after renders that changed the data, the theme or the `size` (and only
/// then: an equal chart at the same size and theme is not drawn again).
#[hook]
fn use_redraw(canvas: &Canvas, chart: Rc<Chart>, theme: Theme, size: (u32, u32)) {
    let Canvas {
        node,
        drawn,
        error,
        tip,
    } = canvas.clone();
    use_effect_with((chart, theme, size), move |(chart, theme, _)| {
        let Some(c) = node.cast::<HtmlCanvasElement>() else {
            return;
        };
        let now = canvas::css_size(&c);
        {
            let d = drawn.borrow();
            let same = d
                .chart
                .as_ref()
                .is_some_and(|x| Rc::ptr_eq(x, chart) || x == chart);
            if same && d.theme == *theme && d.size == now && now != (0, 0) {
                return;
            }
        }
        // A tooltip of the old data would show stale numbers.
        tip.set(None);
        match canvas::draw_chart_on_canvas(&c, chart, &ChartStyle::for_theme(*theme)) {
            Ok(used) => {
                *drawn.borrow_mut() = Drawn {
                    chart: Some(chart.clone()),
                    theme: *theme,
                    size: used,
                };
                error.set(None);
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    });
}

/// The pointer's position in CSS pixels of the canvas, and the drawn size.
fn pointer(e: &MouseEvent, drawn: &RefCell<Drawn>) -> (u32, u32, f64, f64) {
    let (w, h) = drawn.borrow().size;
    (w, h, f64::from(e.offset_x()), f64::from(e.offset_y()))
}

/// The tooltip of the point under the pointer (exact values from the chart's hit-test).
fn on_hover(chart: &Rc<Chart>, canvas: &Canvas) -> Callback<MouseEvent> {
    let (chart, drawn, tip) = (chart.clone(), canvas.drawn.clone(), canvas.tip.clone());
    Callback::from(move |e: MouseEvent| {
        let (w, h, x, y) = pointer(&e, &drawn);
        tip.set(chart.tooltip(w, h, x, y).map(|text| Tip {
            text,
            x,
            y,
            flip: x > f64::from(w) * 0.55,
            width: f64::from(w),
        }));
    })
}

/// A click on a search point picks its layout.
fn on_click(
    chart: &Rc<Chart>,
    canvas: &Canvas,
    on_pick: &Callback<Layout>,
) -> Callback<MouseEvent> {
    let (chart, drawn, on_pick) = (chart.clone(), canvas.drawn.clone(), on_pick.clone());
    Callback::from(move |e: MouseEvent| {
        let (w, h, x, y) = pointer(&e, &drawn);
        if let Some(layout) = chart.layout_at(w, h, x, y) {
            on_pick.emit(layout);
        }
    })
}

/// The PNG download: the canvas as it is drawn.
fn on_png(chart: &Rc<Chart>, canvas: &Canvas) -> Callback<MouseEvent> {
    let (node, chart, error) = (canvas.node.clone(), chart.clone(), canvas.error.clone());
    Callback::from(move |_: MouseEvent| {
        let Some(c) = node.cast::<HtmlCanvasElement>() else {
            return;
        };
        let saved = c
            .to_data_url_with_type("image/png")
            .and_then(|url| browser::save_url(&url, &format!("{}.png", chart.file_stem())));
        if saved.is_err() {
            error.set(Some("PNG export failed".into()));
        }
    })
}

/// The SVG download: the chart drawn again as SVG at the drawn size (800 × 480 before any).
fn on_svg(chart: &Rc<Chart>, canvas: &Canvas, theme: Theme) -> Callback<MouseEvent> {
    let (chart, drawn, error) = (chart.clone(), canvas.drawn.clone(), canvas.error.clone());
    Callback::from(move |_: MouseEvent| {
        let (w, h) = match drawn.borrow().size {
            (0, _) | (_, 0) => (800, 480),
            s => s,
        };
        if let Err(e) = download_svg(&chart, theme, w, h) {
            error.set(Some(e));
        }
    })
}

/// The PNG and SVG download buttons under the chart.
fn downloads(chart: &Rc<Chart>, canvas: &Canvas, theme: Theme) -> Html {
    html! {
        <figcaption class="chart-tools">
            <button type="button" class="chart-download" data-format="png" onclick={on_png(chart, canvas)}
                title="Download this chart as a PNG image">{ "PNG" }</button>
            <button type="button" class="chart-download" data-format="svg" onclick={on_svg(chart, canvas, theme)}
                title="Download this chart as an SVG drawing">{ "SVG" }</button>
        </figcaption>
    }
}

/// Draws `chart` on a canvas filling its container's width; see the module docs.
#[component]
pub fn ChartCanvas(props: &ChartCanvasProps) -> Html {
    let node = use_node_ref();
    let size = use_css_size(&node);
    let canvas = Canvas {
        node: node.clone(),
        drawn: use_mut_ref(Drawn::default),
        error: use_state_eq(|| None::<String>),
        tip: use_state_eq(|| None::<Tip>),
    };
    use_redraw(&canvas, props.chart.clone(), props.theme, size);

    let chart = &props.chart;
    let onmousemove = on_hover(chart, &canvas);
    let onmouseleave = {
        let tip = canvas.tip.clone();
        Callback::from(move |_: MouseEvent| tip.set(None))
    };
    let onclick = on_click(chart, &canvas, &props.on_pick);
    let label = props
        .label
        .clone()
        .unwrap_or_else(|| AttrValue::from(chart.summary()));
    let clickable = matches!(**chart, Chart::Search(_));
    let class = classes!("chart-canvas", clickable.then_some("clickable"));
    let style = format!("width:100%;height:{}px;display:block", props.height);
    html! {
        <figure class="chart-figure" style="margin:0">
            <div class="chart-frame">
                <canvas
                    ref={node}
                    id={props.id.clone()}
                    {class}
                    {style}
                    width={props.width.to_string()}
                    height={props.height.to_string()}
                    role="img"
                    tabindex="0"
                    aria-label={label}
                    {onmousemove}
                    {onmouseleave}
                    {onclick}
                />
                if let Some(t) = &*canvas.tip {
                    <div
                        class="chart-tooltip"
                        role="status"
                        style={t.style()}
                    >{ t.text.clone() }</div>
                }
            </div>
            if props.downloads {
                { downloads(chart, &canvas, props.theme) }
            }
            if let Some(message) = &*canvas.error {
                <p class="chart-error" role="alert">{ message.clone() }</p>
            }
        </figure>
    }
}

thread_local! {
    /// The last SVG offered for download (browser tests read it back).
    static LAST_SVG: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The SVG document behind the most recent SVG download button click, if any.
pub fn last_svg_download() -> Option<String> {
    LAST_SVG.with(|s| s.borrow().clone())
}

/// Renders `chart` as SVG and offers it as `<chart>.svg`.
fn download_svg(chart: &Chart, theme: Theme, w: u32, h: u32) -> Result<(), String> {
    let svg = chart
        .to_svg(&ChartStyle::for_theme(theme), w, h)
        .map_err(|e| e.to_string())?;
    let name = format!("{}.svg", chart.file_stem());
    let saved = browser::download(&name, &svg, "image/svg+xml");
    LAST_SVG.with(|s| *s.borrow_mut() = Some(svg));
    saved.map_err(|_| "SVG export failed".to_string())
}
