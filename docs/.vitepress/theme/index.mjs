import DefaultTheme from "vitepress/theme";
import "./reference.css";

export default DefaultTheme;
